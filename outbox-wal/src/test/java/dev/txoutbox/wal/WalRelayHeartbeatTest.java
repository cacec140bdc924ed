package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The WAL relay writes the same heartbeat row as the polling relay, which the console's Relays page
 * reads: kind {@code wal}, its last completed batch, and its stop when closed; its sweeper beats as
 * a polling relay of its own.
 */
class WalRelayHeartbeatTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void close() throws Exception {
    kit.close();
  }

  @Test
  void theWalRelayAndItsSweeperBeatWhileTheyRunAndStampTheirStopWhenClosed() {
    OutboxTables tables = LogicalServer.freshOutbox("hb_");
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = withSweeper(tables, publisher, "wal-beat");
    relay.start();
    List<UUID> ids = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 3);
    await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().containsAll(ids));
    await()
        .atMost(WalTestKit.WAIT)
        .until(() -> rows(tables, "relay_name = 'wal-beat-sweeper' AND kind = 'polling'") == 1);

    relay.close(Duration.ofSeconds(10));

    Record wal = row(tables, "wal-beat");
    assertThat(wal.get("kind", String.class)).isEqualTo("wal");
    assertThat(wal.get("stopped_at")).isNotNull();
    // The beat at close carries the batches the relay completed before it stopped.
    assertThat(wal.get("last_cycle_at")).isNotNull();
    assertThat(wal.get("settings", String.class))
        .contains("RelayConfig{name=wal-beat", "; slot " + relay.slotName(), "; publisher ");
    assertThat(row(tables, "wal-beat-sweeper").get("stopped_at")).isNotNull();
  }

  /**
   * A regression: {@code abort()}, a crash for the recovery tests, stopped the stream but left the
   * relay's heartbeat thread (and its sweeper) running, beating for a relay that was gone.
   */
  @Test
  void anAbortedRelayStopsItsHeartbeatAndItsSweeper() {
    OutboxTables tables = LogicalServer.freshOutbox("hba_");
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = withSweeper(tables, publisher, "wal-abort");
    relay.start();
    OutboxRelay sweeper = relay.sweeper().orElseThrow();
    await().atMost(WalTestKit.WAIT).until(() -> alive("outbox-relay-wal-abort-heartbeat"));
    await().atMost(WalTestKit.WAIT).until(sweeper::isRunning);

    relay.abort();

    assertThat(relay.isRunning()).isFalse();
    await().atMost(WalTestKit.WAIT).until(() -> !alive("outbox-relay-wal-abort-heartbeat"));
    assertThat(sweeper.isRunning()).as("the sweeper stops with it").isFalse();
  }

  /**
   * A relay named {@code name} with its sweeper, which starts (and polls) one second after the
   * stream: time enough for the stream to publish what the test writes at once.
   */
  private WalRelay withSweeper(OutboxTables tables, RecordingPublisher publisher, String name) {
    return kit.relay(
        WalTestKit.builder(
                tables, publisher, RelayConfig.builder().name(name).batchSize(10).build())
            .sweeper(true)
            .sweepInterval(Duration.ofSeconds(1)));
  }

  private static boolean alive(String thread) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(thread) && t.isAlive());
  }

  private static int rows(OutboxTables tables, String where) {
    return LogicalServer.dsl(tables)
        .fetch("SELECT 1 FROM " + tables.schema() + "." + tables.relaysTable() + " WHERE " + where)
        .size();
  }

  private static Record row(OutboxTables tables, String name) {
    return LogicalServer.dsl(tables)
        .fetchOne(
            "SELECT * FROM "
                + tables.schema()
                + "."
                + tables.relaysTable()
                + " WHERE relay_name = ?",
            name);
  }
}
