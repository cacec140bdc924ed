package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM of a relay process in the middle of a drain loses nothing: what it marked processed was
 * received, the rest is still pending, and the next run delivers it.
 */
class RelaySigtermIT {

  private static final int EVENTS = 20_000;
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void sigtermMidDrainLosesNothingAndTheNextRunDrainsTheRest() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_sigterm");
        RabbitQueue rabbit = new RabbitQueue()) {
      OutboxFixture outbox = new OutboxFixture(db);
      Set<String> all =
          outbox.pending("order.created", EVENTS).stream()
              .map(UUID::toString)
              .collect(Collectors.toSet());
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      String[] relay = {
        "relay",
        "--schema",
        db.schema(),
        "--publisher",
        "rabbit",
        "--amqp-uri",
        RabbitQueue.URI,
        "--exchange",
        rabbit.exchange,
        "--batch-size",
        "20",
        "--workers",
        "2"
      };

      long processedAtStop;
      try (JarProcess first = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(20))
            .until(() -> !first.isAlive() || outbox.count("processed_at is not null") >= 1_000);
        first.terminate();
        assertThat(first.waitFor()).as(first.err()).isZero();
        assertThat(first.err()).contains("stopping").contains("relay stopped");
      }

      processedAtStop = outbox.count("processed_at is not null");
      long pendingAtStop = outbox.count("processed_at is null and dead_lettered_at is null");
      assertThat(processedAtStop).as("stopped mid-drain").isBetween(1L, EVENTS - 1L);
      assertThat(processedAtStop + pendingAtStop).isEqualTo(EVENTS);
      Set<String> processed = processedIds(db);
      await().atMost(WAIT).until(() -> rabbit.received().containsAll(processed));

      try (JarProcess second = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> !second.isAlive() || outbox.count("processed_at is null") == 0);
        second.terminate();
        assertThat(second.waitFor()).as(second.err()).isZero();
      }

      assertThat(outbox.count("processed_at is not null")).isEqualTo(EVENTS);
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == EVENTS);
      assertThat(rabbit.received()).isEqualTo(all);
      System.out.printf(
          "processed by the first run: %d; deliveries %d for %d events (%d duplicates)%n",
          processedAtStop, rabbit.deliveries(), EVENTS, rabbit.deliveries() - EVENTS);
    }
  }

  private static Set<String> processedIds(TestDatabase db) {
    List<UUID> ids =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .fetch(
                "select id from " + db.schema() + ".outbox_events where processed_at is not null")
            .getValues(0, UUID.class);
    Set<String> out = new HashSet<>();
    ids.forEach(id -> out.add(id.toString()));
    return out;
  }
}
