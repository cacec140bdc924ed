package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A relay process publishing to Kafka is killed with SIGKILL several times in the middle of a
 * drain, and started again each time. Every event arrives, and the duplicates stay within what the
 * kills can explain: each kill may lose the commit of one in-flight batch per worker, whose events
 * the next run sends again.
 */
class RelaySigkillKafkaIT {

  private static final int EVENTS = 50_000;
  private static final int KILLS = 4;
  private static final int WORKERS = 2;
  private static final int BATCH_SIZE = 200;
  private static final String TOPIC = "killed.order";
  private static final Duration WAIT = Duration.ofSeconds(120);

  /** Exit status of a JVM killed by signal 9. */
  private static final int SIGKILLED = 128 + 9;

  @Test
  void relayKilledRepeatedlyMidDrainDeliversEveryEventWithBoundedDuplicates() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().start();
        TestDatabase db = TestDatabase.create("cli_sigkill")) {
      kafka.createTopic(TOPIC, 3, Map.of());
      OutboxFixture outbox = new OutboxFixture(db);
      Set<String> written =
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
        "kafka",
        "--bootstrap-servers",
        kafka.bootstrapServers(),
        "--topic-prefix",
        "killed.",
        "--batch-size",
        String.valueOf(BATCH_SIZE),
        "--workers",
        String.valueOf(WORKERS)
      };

      long[] processedAtKill = new long[KILLS];
      for (int kill = 0; kill < KILLS; kill++) {
        long target = (kill + 1L) * EVENTS / (KILLS + 1);
        JarProcess run = JarProcess.start(env, relay);
        try {
          await()
              .atMost(WAIT)
              .pollInterval(Duration.ofMillis(20))
              .until(() -> !run.isAlive() || processed(outbox) >= target);
          assertThat(run.isAlive())
              .as("relay still running before kill %d; stderr:%n%s", kill, run.err())
              .isTrue();
        } finally {
          run.close(); // SIGKILL
        }
        await().atMost(WAIT).until(() -> !run.isAlive());
        assertThat(run.exitCode()).as("killed by SIGKILL").isEqualTo(SIGKILLED);
        processedAtKill[kill] = processed(outbox);
      }
      assertThat(processedAtKill[KILLS - 1]).as("killed mid-drain").isLessThan(EVENTS);

      try (JarProcess last = JarProcess.start(env, relay)) {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(100))
            .until(() -> !last.isAlive() || processed(outbox) == EVENTS);
        last.terminate();
        assertThat(last.waitFor()).as(last.err()).isZero();
      }

      assertThat(outbox.count("dead_lettered_at is not null")).isZero();
      assertThat(processed(outbox)).isEqualTo(EVENTS);
      List<String> delivered =
          kafka.readAll(TOPIC, WAIT).stream().map(RelaySigkillKafkaIT::eventId).toList();
      Set<String> distinct = Set.copyOf(delivered);
      int duplicates = delivered.size() - distinct.size();
      System.out.printf(
          "%d events, %d SIGKILLs (processed at each kill: %s), %d workers x batch %d:"
              + " %d records in the topic, %d distinct, %d duplicates (bound %d)%n",
          EVENTS,
          KILLS,
          Arrays.toString(processedAtKill),
          WORKERS,
          BATCH_SIZE,
          delivered.size(),
          distinct.size(),
          duplicates,
          KILLS * WORKERS * BATCH_SIZE);
      assertThat(distinct).isEqualTo(written);
      assertThat(duplicates).isLessThanOrEqualTo(KILLS * WORKERS * BATCH_SIZE);
    }
  }

  private static long processed(OutboxFixture outbox) {
    return outbox.count("processed_at is not null");
  }

  private static String eventId(ConsumerRecord<String, byte[]> record) {
    return new String(
        record.headers().lastHeader("outbox-event-id").value(), StandardCharsets.UTF_8);
  }
}
