package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.pending;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link WalRelayBuilder#concurrentBatches}: a later batch may finish first, but no position is
 * confirmed before every earlier batch is recorded, so a crash meanwhile loses nothing.
 */
class WalRelayConcurrentBatchesTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  /** Publishes at once, except events of aggregate {@code held}, which wait until released. */
  private static final class HoldingPublisher implements Publisher {
    final List<UUID> published = new CopyOnWriteArrayList<>();
    final CountDownLatch holding = new CountDownLatch(1);
    final CountDownLatch released = new CountDownLatch(1);

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      for (OutboxMessage m : messages) {
        if (m.aggregateId().equals("held")) {
          holding.countDown();
          released.await();
        }
      }
      messages.forEach(m -> published.add(m.id()));
      return messages.stream().map(m -> PublishResult.published()).toList();
    }

    void release() {
      released.countDown();
    }
  }

  /**
   * A relay of one event per batch, no batch interval and two batches out at a time, started and
   * caught up ({@code before}: its confirmed position then); then an event the publisher holds and
   * one more, published and recorded ({@code ids}, in commit order).
   */
  private record Run(
      OutboxTables tables,
      WalRelay relay,
      HoldingPublisher publisher,
      long before,
      List<UUID> ids) {}

  private Run heldThenFree(String prefix) throws InterruptedException {
    OutboxTables tables = LogicalServer.freshOutbox(prefix);
    Outbox outbox = Outbox.builder().tables(tables).build();
    HoldingPublisher publisher = new HoldingPublisher();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, WalTestKit.config(1))
                .minBatchInterval(Duration.ZERO)
                .concurrentBatches(2));
    relay.start();
    await().atMost(WAIT).until(() -> relay.slotLagSeconds() == 0);
    // The server's insert position just before the held event: the relay may still confirm what
    // was written before it (its own heartbeat row, every few seconds), never anything after.
    long before =
        org.postgresql.replication.LogSequenceNumber.valueOf(
                String.valueOf(
                    LogicalServer.dsl(tables)
                        .fetchValue("SELECT pg_current_wal_insert_lsn()::text")))
            .asLong();
    UUID held = write(tables, outbox, "held", 1).get(0);
    assertThat(publisher.holding.await(30, TimeUnit.SECONDS)).isTrue();
    UUID free = write(tables, outbox, "free", 1).get(0);
    await().atMost(WAIT).until(() -> publisher.published.equals(List.of(free)));
    await().atMost(WAIT).until(() -> pending(tables) == 1);
    return new Run(tables, relay, publisher, before, List.of(held, free));
  }

  @Test
  void aLaterBatchFinishesFirstButItsPositionWaitsForTheEarlierOne() throws Exception {
    Run run = heldThenFree("cb_");
    WalRelay relay = run.relay();
    // The second batch is recorded, the first is not: nothing may be confirmed meanwhile.
    await()
        .during(Duration.ofMillis(500))
        .atMost(WAIT)
        .until(() -> relay.confirmedLsn() <= run.before() && relay.slotLagSeconds() > 0);

    run.publisher().release();
    await().atMost(WAIT).until(() -> pending(run.tables()) == 0);
    assertThat(run.publisher().published).containsExactly(run.ids().get(1), run.ids().get(0));
    await().atMost(WAIT).until(() -> relay.confirmedLsn() > run.before());
    await().atMost(WAIT).until(() -> relay.slotLagSeconds() == 0);
  }

  @Test
  void aCrashWhileAnEarlierBatchIsOutPublishesItAgainAndNotTheLaterOne() throws Exception {
    Run run = heldThenFree("cc_");
    run.relay().abort(); // the held batch is interrupted and rolls back; nothing more is confirmed
    assertThat(run.relay().confirmedLsn()).isLessThanOrEqualTo(run.before());
    assertThat(
            LogicalServer.dsl(run.tables())
                .fetchCount(
                    OUTBOX_EVENTS,
                    OUTBOX_EVENTS.ID.eq(run.ids().get(0)).and(OUTBOX_EVENTS.PROCESSED_AT.isNull())))
        .isEqualTo(1);

    RecordingPublisher next = new RecordingPublisher();
    WalRelay restarted = kit.relay(run.tables(), next, WalTestKit.config(1));
    restarted.start();
    await().atMost(WAIT).until(() -> pending(run.tables()) == 0);
    assertThat(next.publishedIds()).containsExactly(run.ids().get(0));
    await().atMost(WAIT).until(() -> restarted.skippedEvents() == 1); // the second, recorded
    assertThat(run.publisher().published).containsExactly(run.ids().get(1));
  }

  @Test
  void aStreamThatFailsWhileBatchesAreOutLetsThemFinishAndPublishesNothingTwice() throws Exception {
    Run run = heldThenFree("cf_");
    WalRelay relay = run.relay();
    // The server ends the stream while the first batch is held. A server function, outside the
    // model.
    try (CapturedLog log = new CapturedLog()) {
      LogicalServer.execute(
          "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
              + relay.slotName()
              + "'");
      await()
          .atMost(WAIT)
          .until(() -> log.lines().stream().anyMatch(l -> l.contains("with 2 batch(es) out")));
    }
    assertThat(relay.reconnects()).isZero();
    run.publisher().release();
    await().atMost(WAIT).until(() -> pending(run.tables()) == 0);
    await().atMost(WAIT).until(() -> relay.reconnects() == 1);
    // Both batches were recorded, unconfirmed, on the old stream; the new one reads them again.
    await().atMost(WAIT).until(() -> relay.skippedEvents() == 2);
    await().atMost(WAIT).until(() -> relay.slotLagSeconds() == 0);
    assertThat(run.publisher().published).containsExactly(run.ids().get(1), run.ids().get(0));
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 9})
  void refusesConcurrentBatchesOutOfRange(int n) {
    assertThatThrownBy(() -> WalRelay.builder().concurrentBatches(n))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("concurrentBatches must be between 1 and 8 but was " + n);
  }

  @Test
  void refusesConcurrentBatchesInAPerAggregateOrdering() {
    OutboxTables tables = LogicalServer.freshOutbox("co_");
    RelayConfig ordered =
        WalTestKit.config(10).toBuilder().ordering(Ordering.PER_AGGREGATE).build();
    assertThatThrownBy(
            () ->
                WalTestKit.builder(tables, new RecordingPublisher(), ordered)
                    .concurrentBatches(2)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("concurrentBatches must be 1 in ordering PER_AGGREGATE but was 2");
  }

  @Test
  void anOutageOfSeveralBatchesIsHeardOnceAsItStartsAndOnceAsItEnds() {
    OutboxTables tables = LogicalServer.freshOutbox("co_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher down =
        new RecordingPublisher()
            .failWhen(m -> true, PublishResult.brokerUnavailable("connection refused"));
    WalTestKit.OutageListener listener = new WalTestKit.OutageListener();
    List<String> heard = listener.heard;
    Backoff probe = Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(100));
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(
                    tables,
                    down,
                    WalTestKit.config(1).toBuilder().brokerProbeBackoff(probe).build())
                .minBatchInterval(Duration.ZERO)
                .concurrentBatches(2)
                .listener(listener));
    relay.start();
    List<UUID> ids = new ArrayList<>(write(tables, outbox, "a", 1));
    ids.addAll(write(tables, outbox, "b", 1));
    // Both batches out and holding the slot, each publishing its event again and again.
    await()
        .atMost(WAIT)
        .until(
            () ->
                ids.stream()
                    .allMatch(
                        id ->
                            down.attempted().stream().filter(m -> m.id().equals(id)).count() >= 3));
    assertThat(heard).containsExactly("unavailable: connection refused");

    down.clearFailures();
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(down.publishedIds()).containsExactlyInAnyOrderElementsOf(ids);
    await().atMost(WAIT).until(() -> heard.size() == 2);
    assertThat(heard).containsExactly("unavailable: connection refused", "available");
  }
}
