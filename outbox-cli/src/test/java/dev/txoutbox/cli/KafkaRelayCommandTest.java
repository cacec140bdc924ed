package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The relay command with {@code --publisher kafka} against a real broker. */
class KafkaRelayCommandTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void relaysEveryEventToThePrefixedTopicKeyedByAggregateAndExitsZero() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().start();
        TestDatabase db = TestDatabase.create("cli_kafka")) {
      kafka.createTopic("shop.order", 3, Map.of());
      List<UUID> ids = new OutboxFixture(db).pending("order.created", 200);
      CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");

      CompletableFuture<CliRunner.Result> run =
          CompletableFuture.supplyAsync(
              () ->
                  cli.run(
                      "relay",
                      "--jdbc-url",
                      TestDatabase.jdbcUrl(),
                      "--schema",
                      db.schema(),
                      "--publisher",
                      "kafka",
                      "--bootstrap-servers",
                      kafka.bootstrapServers(),
                      "--topic-prefix",
                      "shop.",
                      "--producer",
                      "linger.ms=5",
                      "--completion",
                      "delete"));

      List<ConsumerRecord<String, byte[]>> records = kafka.read("shop.order", ids.size(), WAIT);
      await().atMost(WAIT).until(() -> new OutboxFixture(db).count("true") == 0);
      cli.stop.countDown();
      CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);

      assertThat(result.exitCode()).as(result.err()).isZero();
      assertThat(records)
          .extracting(
              r ->
                  new String(
                      r.headers().lastHeader("outbox-event-id").value(), StandardCharsets.UTF_8))
          .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
      assertThat(records).allSatisfy(r -> assertThat(r.key()).startsWith("o-"));
    }
  }
}
