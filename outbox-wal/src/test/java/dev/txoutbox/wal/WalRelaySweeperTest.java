package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The WAL relay builds, starts, closes and exposes the polling relay behind it (issue 33). */
class WalRelaySweeperTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  @Test
  void itsSweeperRetriesWhatTheWalRelayFailedAndClosesWithIt() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("sw_");
    OutboxSchema.migrateOrderingIndex(LogicalServer.dataSource(), tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    // Fails each event's first attempt only: the WAL relay's, so the sweeper's retry succeeds.
    RecordingPublisher publisher = new RecordingPublisher().failWhen(m -> m.attempt() == 1);
    RelayConfig config =
        WalTestKit.config(100).toBuilder().ordering(Ordering.PER_AGGREGATE).build();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, config)
                .sweeper(true)
                .sweepInterval(Duration.ofMillis(100))
                .metrics(registry));
    OutboxRelay sweeper = relay.sweeper().orElseThrow();
    assertThat(sweeper.isRunning()).as("not before start()").isFalse();
    assertThat(registry.find("outbox.events.published").tag("relay", "wal-test-sweeper").meters())
        .as("its meters, under its own name")
        .isNotEmpty();

    relay.start();
    List<UUID> ids = write(tables, outbox, "a", 2);
    await().atMost(WAIT).until(sweeper::isRunning);
    await().atMost(WAIT).until(() -> publisher.published().size() == 2);
    assertThat(publisher.published().stream().map(m -> m.id()))
        .as("retried by the sweeper, in the aggregate's order")
        .containsExactlyElementsOf(ids);
    assertThat(publisher.published()).allMatch(m -> m.attempt() == 2);
    assertThat(
            LogicalServer.dsl(tables)
                .fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNotNull()))
        .isEqualTo(2);

    relay.close();
    assertThat(sweeper.isRunning()).as("closed with the WAL relay").isFalse();
    assertThat(registry.find("outbox.events.published").tag("relay", "wal-test-sweeper").meters())
        .isEmpty();
  }

  /**
   * A regression: the sweeper polled at once when it started, in {@code seq} order, and took the
   * events committed since the slot's confirmed position (a restart's backlog) before the stream
   * did, so events of two overlapping transactions reached the broker in {@code seq} order, not in
   * the commit order the stream gives. Now it starts one sweep interval after the stream.
   */
  @Test
  void aRestartsBacklogReachesTheBrokerInCommitOrderThoughTheSweeperRuns() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("swo_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    WalRelay first = kit.relay(tables, new RecordingPublisher(), WalTestKit.config(100));
    first.start(); // creates the slot
    first.close();
    // Pairs of overlapping transactions of one aggregate, each pair's later insert committed first.
    List<UUID> commitOrder = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      try (Connection early = LogicalServer.dataSource().getConnection();
          Connection late = LogicalServer.dataSource().getConnection()) {
        early.setAutoCommit(false);
        late.setAutoCommit(false);
        UUID inserted = record(outbox, early, tables, "early" + i);
        UUID insertedLater = record(outbox, late, tables, "late" + i);
        late.commit();
        early.commit();
        commitOrder.add(insertedLater);
        commitOrder.add(inserted);
      }
    }

    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, WalTestKit.config(100))
                .sweeper(true)
                .sweepInterval(Duration.ofMinutes(1)));
    relay.start();
    await().atMost(WAIT).until(() -> WalTestKit.pending(tables) == 0);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(commitOrder);
  }

  private static UUID record(Outbox outbox, Connection c, OutboxTables tables, String type) {
    return outbox.record(
        DSL.using(c, SQLDialect.POSTGRES, tables.settings(null)),
        OutboxEvent.of("order", "a", type, "{}"));
  }

  @Test
  void aRelayWithoutASweeperHasNone() {
    OutboxTables tables = LogicalServer.freshOutbox("nsw_");
    WalRelay relay = kit.relay(tables, new RecordingPublisher(), WalTestKit.config(10));
    assertThat(relay.sweeper()).isEmpty();
  }

  @Test
  void theSweepIntervalMustBePositive() {
    assertThatThrownBy(() -> WalRelay.builder().sweepInterval(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sweepInterval must be positive but was PT0S");
  }

  @Test
  void theSweeperIsConfiguredAsTheWalRelayNamedAfterIt() {
    OutboxTables tables = LogicalServer.freshOutbox("csw_");
    RelayConfig config =
        RelayConfig.builder()
            .name("billing")
            .batchSize(50)
            .maxAttempts(3)
            .backoff(Backoff.exponential(Duration.ofSeconds(2), Duration.ofSeconds(20)))
            .build();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, new RecordingPublisher(), config)
                .sweeper(true)
                .sweepInterval(Duration.ofMinutes(10)));
    RelayConfig sweeps = relay.sweeper().orElseThrow().config();
    assertThat(sweeps)
        .isEqualTo(
            config.toBuilder()
                .name("billing-sweeper")
                .minPollInterval(Duration.ofMinutes(10))
                .maxPollInterval(Duration.ofMinutes(10))
                .build());
  }
}
