package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.wal.WalSlot;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM of a {@code relay --source wal} process (the shaded jar) while events stream in: it exits
 * 0 with both relays closed and the slot released, what it marked processed was received, and the
 * next run reads the rest from the slot.
 */
class WalRelaySigtermIT {

  private static final int TRANSACTIONS = 200;
  private static final int PER_TRANSACTION = 100;
  private static final int EVENTS = TRANSACTIONS * PER_TRANSACTION;
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void sigtermWhileStreamingClosesBothRelaysAndTheNextRunPublishesTheRest() throws Exception {
    LogicalDatabase db = LogicalDatabase.freshOutbox();
    String slot = WalSlot.defaultName(OutboxTables.of(db.schema, ""));
    try (RabbitQueue rabbit = new RabbitQueue()) {
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", LogicalDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      String[] relay = {
        "relay",
        "--schema",
        db.schema,
        "--source",
        "wal",
        // Every event the test sees published comes from the slot, after the sweeper's first cycle.
        "--sweep-interval",
        "10m",
        "--publisher",
        "rabbit",
        "--amqp-uri",
        RabbitQueue.URI,
        "--exchange",
        rabbit.exchange,
        "--batch-size",
        "20"
      };

      CompletableFuture<List<UUID>> written;
      try (JarProcess first = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .until(
                () ->
                    !first.isAlive()
                        || WalSlot.find(LogicalDatabase.dataSource(), slot)
                            .map(WalSlot::active)
                            .orElse(false));
        written = CompletableFuture.supplyAsync(() -> db.write(TRANSACTIONS, PER_TRANSACTION));
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(20))
            .until(() -> !first.isAlive() || db.count("processed_at is not null") >= 1_000);
        first.terminate();
        assertThat(first.waitFor()).as(first.err()).isZero();
        assertThat(first.err())
            .contains("WAL relay default stopped")
            .contains("stopping")
            .contains("relay stopped");
      }
      Set<String> all = ids(written.get(WAIT.toSeconds(), TimeUnit.SECONDS));
      long processedAtStop = db.count("processed_at is not null");
      assertThat(processedAtStop).as("stopped mid-stream").isBetween(1L, EVENTS - 1L);
      assertThat(WalSlot.find(LogicalDatabase.dataSource(), slot).orElseThrow().active())
          .as("the slot is released")
          .isFalse();
      Set<String> processed = processedIds(db);
      await().atMost(WAIT).until(() -> rabbit.received().containsAll(processed));

      try (JarProcess second = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> !second.isAlive() || db.count("processed_at is null") == 0);
        second.terminate();
        assertThat(second.waitFor()).as(second.err()).isZero();
      }

      assertThat(db.count("processed_at is not null")).isEqualTo(EVENTS);
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == EVENTS);
      assertThat(rabbit.received()).isEqualTo(all);
      System.out.printf(
          "WAL relay: processed by the first run %d; deliveries %d for %d events (%d duplicates)%n",
          processedAtStop, rabbit.deliveries(), EVENTS, rabbit.deliveries() - EVENTS);
    }
  }

  private static Set<String> ids(List<UUID> ids) {
    Set<String> out = new HashSet<>();
    ids.forEach(id -> out.add(id.toString()));
    return out;
  }

  private static Set<String> processedIds(LogicalDatabase db) {
    return ids(
        DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES)
            .fetch("select id from " + db.schema + ".outbox_events where processed_at is not null")
            .getValues(0, UUID.class));
  }
}
