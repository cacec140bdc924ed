package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The jar's relay against a Kafka broker that is down: the client's own lines (two per reconnect
 * attempt, several a second) are each logged once, beside the relay's outage line.
 */
class KafkaOutageLogIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aBrokerOutageLogsEachKafkaClientMessageOnce() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_kafka_outage")) {
      new OutboxFixture(db).pending("order.created", 3);
      try (JarProcess relay =
          JarProcess.start(
              Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres"),
              "relay",
              "--schema",
              db.schema(),
              "--publisher",
              "kafka",
              "--bootstrap-servers",
              "127.0.0.1:1",
              "--send-timeout",
              "3s")) {
        // The relay's own line comes after a 3 s send: by then the client tried the broker ~6
        // times.
        await()
            .atMost(WAIT)
            .until(() -> !relay.isAlive() || relay.err().contains("broker unavailable"));
        relay.terminate();
        assertThat(relay.waitFor()).as(relay.err()).isZero();

        List<String> kafkaLines =
            relay
                .err()
                .lines()
                .filter(l -> l.contains(" o.a.k."))
                .map(KafkaOutageLogIT::message)
                .toList();
        assertThat(kafkaLines).as(relay.err()).isNotEmpty();
        Map<String, Long> perMessage =
            kafkaLines.stream()
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        assertThat(perMessage).as(relay.err()).allSatisfy((m, n) -> assertThat(n).isOne());
      }
    }
  }

  /** The line without its time stamp. */
  private static String message(String line) {
    return line.substring(line.indexOf(' ') + 1);
  }
}
