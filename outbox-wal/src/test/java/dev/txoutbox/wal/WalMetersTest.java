package dev.txoutbox.wal;

import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The WAL relay's meters in a registry, its own and the outbox meters every relay has: their
 * values, their names, and their removal.
 */
class WalMetersTest {

  private final WalTestKit kit = new WalTestKit();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  private double gauge(String name) {
    return registry.get(name).tag("relay", "wal-test").gauge().value();
  }

  private double counter(String name) {
    return registry.get(name).tag("relay", "wal-test").functionCounter().count();
  }

  @Test
  void theMetersFollowTheSlotAndLeaveWithTheRelay() {
    OutboxTables tables = LogicalServer.freshOutbox("me_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    RelayConfig config =
        WalTestKit.config(100).toBuilder()
            .brokerProbeBackoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(50)))
            .build();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, config)
                .metrics(
                    OutboxMetrics.builder(registry)
                        .refreshInterval(Duration.ofMillis(50))
                        .build()));
    assertThat(gauge(WalMeters.LAG_BYTES)).isNaN();
    assertThat(gauge(WalMeters.LAG_SECONDS)).isNaN();
    relay.start();
    write(tables, outbox, "a", 2);
    // A delayed event: read, and left to the polling relay.
    LogicalServer.dsl(tables)
        .transaction(
            c ->
                outbox.record(
                    c.dsl(),
                    OutboxEvent.builder("order", "a", "later")
                        .payload("{}")
                        .notBefore(Instant.now().plusSeconds(3600))
                        .build()));
    await().atMost(WAIT).until(() -> counter(WalMeters.SKIPPED) == 1);
    await().atMost(WAIT).until(() -> relay.confirmedLsn() > 0);
    // The gauge tells what the server has: the slot's confirmed position.
    await()
        .atMost(WAIT)
        .until(() -> gauge(WalMeters.CONFIRMED_LSN) == slotConfirmedFlush(relay.slotName()));
    assertThat(gauge(WalMeters.CONFIRMED_LSN)).isPositive();
    await().atMost(WAIT).until(() -> gauge(WalMeters.LAG_SECONDS) == 0);

    // The broker goes away: the relay holds the slot, both lags grow.
    publisher.failWhen(m -> true, PublishResult.brokerUnavailable("connection refused"));
    write(tables, outbox, "a", 1);
    await().atMost(WAIT).until(() -> publisher.failures().size() >= 2);
    double bytes = gauge(WalMeters.LAG_BYTES);
    write(tables, outbox, "b", 3);
    await().atMost(WAIT).until(() -> gauge(WalMeters.LAG_BYTES) > bytes);
    assertThat(gauge(WalMeters.LAG_SECONDS)).isPositive();
    assertThat(gauge("outbox.broker.available")).isZero();
    publisher.clearFailures();
    await().atMost(WAIT).until(() -> publisher.published().size() == 6);
    // The outbox meters every relay has, fed by the WAL relay's outcomes.
    await().atMost(WAIT).until(() -> gauge("outbox.broker.available") == 1);
    assertThat(registry.get("outbox.events.published").tag("relay", "wal-test").counter().count())
        .isEqualTo(6);
    assertThat(registry.get("outbox.broker.outages").tag("relay", "wal-test").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("outbox.batch.duration").tag("relay", "wal-test").timer().count())
        .isPositive();
    // The backlog gauges read the relay's outbox: the delayed event is its one pending event.
    await().atMost(WAIT).until(() -> gauge("outbox.events.pending") == 1);

    // The server ends the stream: the relay opens it again. A server function, outside the model.
    LogicalServer.execute(
        "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
            + relay.slotName()
            + "'");
    await().atMost(WAIT).until(() -> counter(WalMeters.RECONNECTS) == 1);

    relay.close();
    assertThat(registry.getMeters()).isEmpty();
  }

  private static double slotConfirmedFlush(String slot) {
    // pg_replication_slots has no jOOQ model; pg_lsn minus '0/0' is the position as a number.
    Object lsn =
        LogicalServer.dsl(OutboxTables.defaults())
            .fetchValue(
                "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots"
                    + " WHERE slot_name = ?",
                slot);
    return lsn instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  @Test
  void aRefreshIntervalBelowAMillisecondStarts() {
    OutboxTables tables = LogicalServer.freshOutbox("mn_");
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, new RecordingPublisher(), WalTestKit.config(10))
                .metrics(
                    OutboxMetrics.builder(registry)
                        .refreshInterval(Duration.ofNanos(500_000))
                        .build()));
    relay.start();
    await().atMost(WAIT).until(() -> gauge(WalMeters.LAG_BYTES) >= 0);
    relay.close();
    assertThat(registry.getMeters()).isEmpty();
  }

  @Test
  void aSecondRelayOfTheSameNameInTheRegistryIsRefused() {
    OutboxTables tables = LogicalServer.freshOutbox("mu_");
    RecordingPublisher publisher = new RecordingPublisher();
    kit.relay(WalTestKit.builder(tables, publisher, WalTestKit.config(10)).metrics(registry));
    assertThatThrownBy(
            () ->
                WalTestKit.builder(tables, publisher, WalTestKit.config(10))
                    .metrics(registry)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'wal-test' already has WAL meters");
  }

  @Test
  void everyMeterIsDescribedAndTaggedWithTheRelay() {
    OutboxTables tables = LogicalServer.freshOutbox("md_");
    kit.relay(
        WalTestKit.builder(tables, new RecordingPublisher(), WalTestKit.config(10))
            .metrics(registry));
    assertThat(registry.getMeters())
        .extracting(m -> m.getId().getName())
        .contains(
            WalMeters.LAG_BYTES,
            WalMeters.LAG_SECONDS,
            WalMeters.CONFIRMED_LSN,
            WalMeters.SKIPPED,
            WalMeters.RECONNECTS,
            "outbox.events.published",
            "outbox.batch.duration",
            "outbox.broker.available",
            "outbox.events.pending",
            "outbox.oldest.pending.age")
        .allMatch(name -> name.startsWith("outbox."));
    assertThat(registry.getMeters())
        .allMatch(m -> m.getId().getDescription() != null)
        .allMatch(m -> "wal-test".equals(m.getId().getTag("relay")));
    assertThat(registry.get(WalMeters.SKIPPED).meter()).isInstanceOf(FunctionCounter.class);
    assertThat(registry.get(WalMeters.LAG_BYTES).meter()).isInstanceOf(Gauge.class);
  }
}
