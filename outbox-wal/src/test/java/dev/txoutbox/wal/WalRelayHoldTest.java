package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.pending;
import static dev.txoutbox.wal.WalTestKit.touched;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.txoutbox.Backoff;
import dev.txoutbox.Outbox;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** During a broker outage the WAL relay holds the slot and publishes the same batch again. */
class WalRelayHoldTest {

  private static final PublishResult DOWN = PublishResult.brokerUnavailable("connection refused");

  private final WalTestKit kit = new WalTestKit();
  private final WalTestKit.OutageListener listener = new WalTestKit.OutageListener();
  private final List<String> heard = listener.heard;

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  private static RelayConfig config(Backoff probe) {
    return WalTestKit.config(100).toBuilder()
        .brokerProbeBackoff(probe)
        .shutdownTimeout(Duration.ofMinutes(2))
        .build();
  }

  @Test
  void holdsTheSlotDuringAnOutageThenPublishesEveryEventOnceInCommitOrder() {
    OutboxTables tables = LogicalServer.freshOutbox("ho_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher().failWhen(m -> true, DOWN);
    // The server ends a stream it has not heard from for 1 s: the hold must keep it alive.
    Properties impatient = LogicalServer.credentials();
    impatient.setProperty("options", "-c wal_sender_timeout=1000");
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(
                    tables,
                    publisher,
                    config(Backoff.exponential(Duration.ofMillis(1500), Duration.ofMillis(1500))))
                .replicationUrl(LogicalServer.jdbcUrl(), impatient)
                .statusInterval(Duration.ofMillis(200))
                .listener(listener));
    assertThat(relay.slotLagSeconds()).isNaN();
    relay.start();
    await().atMost(WAIT).until(() -> relay.slotLagSeconds() == 0);
    List<UUID> expected = new ArrayList<>(write(tables, outbox, "a", 1));
    await().atMost(WAIT).until(() -> publisher.attempts().size() >= 2);
    long confirmed = relay.confirmedLsn();
    long lag = relay.slotLagBytes();
    double lagSeconds = relay.slotLagSeconds();
    expected.addAll(write(tables, outbox, "b", 3));
    expected.addAll(write(tables, outbox, "a", 2));
    // Two more attempts, each after a wait longer than the server's timeout.
    await().atMost(WAIT).until(() -> publisher.attempts().size() >= 4);

    assertThat(relay.confirmedLsn()).isEqualTo(confirmed);
    assertThat(relay.slotLagBytes()).isGreaterThan(lag);
    assertThat(lagSeconds).isPositive();
    assertThat(relay.slotLagSeconds()).isGreaterThan(lagSeconds);
    assertThat(touched(tables)).isZero();
    assertThat(publisher.published()).isEmpty();
    // Only the first batch was read and attempted again and again.
    assertThat(publisher.attempted()).allMatch(m -> m.id().equals(expected.get(0)));
    assertThat(heard).containsExactly("unavailable: connection refused");

    publisher.clearFailures();
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(expected);
    assertThat(publisher.published()).allMatch(m -> m.attempt() == 1);
    assertThat(touched(tables)).isZero();
    assertThat(heard).containsExactly("unavailable: connection refused", "available");
    assertThat(relay.reconnects()).as("the stream stayed open through the hold").isZero();
    await().atMost(WAIT).until(() -> relay.confirmedLsn() > confirmed);
    await().atMost(WAIT).until(() -> relay.slotLagSeconds() == 0);
  }

  @Test
  void closeEndsAHoldAtOnceAndTheNextRelayOnTheSlotPublishesEverything() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("hc_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher down = new RecordingPublisher().failWhen(m -> true, DOWN);
    Backoff tenMinutes = Backoff.exponential(Duration.ofMinutes(10), Duration.ofMinutes(10));
    WalRelay relay =
        kit.relay(WalTestKit.builder(tables, down, config(tenMinutes)).listener(listener));
    relay.start();
    List<UUID> ids = write(tables, outbox, "a", 3);
    await().atMost(WAIT).until(() -> !heard.isEmpty());
    // Without the wake-up, close() would wait its two-minute shutdown timeout.
    assertTimeoutPreemptively(Duration.ofSeconds(30), () -> relay.close());
    assertThat(relay.slotLagSeconds()).isNaN();
    assertThat(touched(tables)).isZero();

    RecordingPublisher up = new RecordingPublisher();
    WalRelay next = kit.relay(tables, up, WalTestKit.config(100));
    next.start();
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(up.publishedIds()).containsExactlyElementsOf(ids);
  }

  @Test
  void aPublisherThatThrowsIsARetryableFailureNotAnOutage() {
    OutboxTables tables = LogicalServer.freshOutbox("ht_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    Publisher throwing =
        messages -> {
          throw new IllegalStateException("bug in the publisher");
        };
    WalRelay relay =
        kit.relay(WalTestKit.builder(tables, throwing, WalTestKit.config(100)).listener(listener));
    relay.start();
    write(tables, outbox, "a", 1);
    write(tables, outbox, "b", 1);
    // As in the polling relay: an attempt counted, the event left to the polling relay.
    await().atMost(WAIT).until(() -> touched(tables) == 2);
    assertThat(
            LogicalServer.dsl(tables)
                .fetchCount(
                    OUTBOX_EVENTS, OUTBOX_EVENTS.LAST_ERROR.contains("bug in the publisher")))
        .isEqualTo(2);
    assertThat(heard).isEmpty();
  }

  @Test
  void aPublishThatBlocksPastTheServersTimeoutKeepsTheStreamOpen() {
    OutboxTables tables = LogicalServer.freshOutbox("hb_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher recording = new RecordingPublisher();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    Publisher blocking =
        messages -> {
          entered.countDown();
          released.await(); // a broker that takes its time to answer
          return recording.publish(messages);
        };
    Properties impatient = LogicalServer.credentials();
    impatient.setProperty("options", "-c wal_sender_timeout=1000");
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, blocking, WalTestKit.config(1))
                .replicationUrl(LogicalServer.jdbcUrl(), impatient)
                .statusInterval(Duration.ofMillis(200)));
    relay.start();
    List<UUID> ids = new ArrayList<>(write(tables, outbox, "a", 1));
    await().atMost(WAIT).until(() -> entered.getCount() == 0);
    // A full batch behind it: the reader waits for the first and reads no further meanwhile, but
    // tells the server the relay is alive while the batch thread waits in publish.
    ids.addAll(write(tables, outbox, "b", 1));
    await()
        .during(Duration.ofMillis(2500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> relay.reconnects() == 0);
    released.countDown();
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(recording.publishedIds()).containsExactlyElementsOf(ids);
    assertThat(relay.reconnects())
        .as("the stream stayed open through the blocked publish")
        .isZero();
  }

  /**
   * A regression: a batch holding the slot that failed on the database ended its outage without a
   * word, so the batch that came again on the reopened stream announced the same outage a second
   * time, and if the broker was back by then nobody heard it was (the broker-available gauge stayed
   * at 0).
   */
  @ParameterizedTest(name = "broker back before the stream reopens: {0}")
  @ValueSource(booleans = {false, true})
  void aDatabaseFailureDuringAnOutageIsTheSameOutageAndItsEndIsHeard(boolean brokerBackMeanwhile) {
    OutboxTables tables = LogicalServer.freshOutbox(brokerBackMeanwhile ? "hdb_" : "hdd_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher().failWhen(m -> true, DOWN);
    AtomicBoolean refusing = new AtomicBoolean();
    DataSource database = refusingWhile(LogicalServer.dataSource(), refusing);
    Backoff probe = Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(50));
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, config(probe))
                .dataSource(database)
                .listener(listener));
    relay.start();
    List<UUID> ids = write(tables, outbox, "a", 1);
    await().atMost(WAIT).until(() -> publisher.attempts().size() >= 2);
    assertThat(heard).containsExactly("unavailable: connection refused");

    // The batch's next attempt fails on the database, and the stream with it.
    refusing.set(true);
    await().atMost(WAIT).until(() -> relay.reconnects() >= 1);
    if (brokerBackMeanwhile) {
      publisher.clearFailures();
    }
    int attempts = publisher.attempts().size();
    refusing.set(false);
    if (!brokerBackMeanwhile) {
      // The event comes again on the reopened stream and holds the slot again: the same outage.
      await().atMost(WAIT).until(() -> publisher.attempts().size() >= attempts + 2);
      assertThat(heard).containsExactly("unavailable: connection refused");
      publisher.clearFailures();
    }
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(ids);
    await().atMost(WAIT).until(() -> heard.size() >= 2);
    assertThat(heard).containsExactly("unavailable: connection refused", "available");
  }

  /** {@code target}, refusing connections while {@code refusing} is set: the database gone. */
  private static DataSource refusingWhile(DataSource target, AtomicBoolean refusing) {
    return (DataSource)
        Proxy.newProxyInstance(
            WalRelayHoldTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection") && refusing.get()) {
                throw new SQLException("connection refused (the test's database is away)", "08001");
              }
              try {
                return method.invoke(target, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
