package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * A routed outbox from the relay's {@code --publisher-config}: events of one outbox go to Kafka or
 * to RabbitMQ by their event type or aggregate type, each publisher configured by its own prefixed
 * keys, both real brokers.
 */
class RoutedRelayCommandTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/x";

  @Test
  void eachEventReachesTheBrokerItsTypeIsRoutedTo(@TempDir Path dir) throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().start();
        RabbitQueue rabbit = new RabbitQueue();
        TestDatabase db = TestDatabase.create("cli_routed")) {
      kafka.createTopic("shop.order", 3, Map.of());
      Path config =
          Files.writeString(
              dir.resolve("routes.properties"),
              "route.aggregate-type.payment=rabbit\n"
                  // An event type's route wins over its aggregate type's (the default here).
                  + "route.event-type.order.cancelled=rabbit\n"
                  + "route.default=kafka\n"
                  + "kafka.bootstrap-servers="
                  + kafka.bootstrapServers()
                  + "\n"
                  + "kafka.topic-prefix=shop.\n"
                  + "kafka.producer.linger.ms=5\n"
                  + "rabbit.amqp-uri="
                  + RabbitQueue.URI
                  + "\n"
                  + "rabbit.exchange="
                  + rabbit.exchange
                  + "\n");
      List<UUID> created = write(db, "order", "order.created", 30);
      List<UUID> cancelled = write(db, "order", "order.cancelled", 20);
      List<UUID> payments = write(db, "payment", "payment.captured", 25);
      List<UUID> toRabbit = new ArrayList<>(cancelled);
      toRabbit.addAll(payments);

      ListAppender<ILoggingEvent> log = new ListAppender<>();
      log.start();
      Logger relayLogger = (Logger) LoggerFactory.getLogger(RelayCommand.class);
      relayLogger.addAppender(log);
      CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
      try {
        CompletableFuture<CliRunner.Result> run =
            CompletableFuture.supplyAsync(
                () ->
                    cli.run(
                        "relay",
                        "--jdbc-url",
                        TestDatabase.jdbcUrl(),
                        "--schema",
                        db.schema(),
                        "--publisher-config",
                        config.toString(),
                        "--max-poll-interval",
                        "200ms"));

        List<ConsumerRecord<String, byte[]>> records =
            kafka.read("shop.order", created.size(), WAIT);
        await().atMost(WAIT).until(() -> rabbit.receivedCount() == toRabbit.size());
        await().atMost(WAIT).until(() -> new OutboxFixture(db).count("processed_at is null") == 0);
        cli.stop.countDown();
        CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(result.exitCode()).as(result.err()).isZero();
        assertThat(records)
            .extracting(
                r ->
                    new String(
                        r.headers().lastHeader("outbox-event-id").value(), StandardCharsets.UTF_8))
            .containsExactlyInAnyOrderElementsOf(created.stream().map(UUID::toString).toList());
        assertThat(kafka.readAll("shop.order", Duration.ofSeconds(5))).hasSize(created.size());
        assertThat(rabbit.received())
            .containsExactlyInAnyOrderElementsOf(toRabbit.stream().map(UUID::toString).toList());
        assertThat(new OutboxFixture(db).count("processed_at is not null")).isEqualTo(75);
        assertThat(messages(log, "starting"))
            .singleElement()
            .asString()
            .contains(
                "publisher routed by event type, then aggregate type: event type"
                    + " 'order.cancelled' -> rabbit, aggregate type 'payment' -> rabbit,"
                    + " otherwise -> kafka; rabbit{amqp-uri=****, exchange="
                    + rabbit.exchange
                    + "}; kafka{bootstrap-servers=");
      } finally {
        relayLogger.detachAppender(log);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "route.default=kafka,kafka.bootstrap-servers=k:9092 | --publisher kafka"
            + " | --publisher must not be given when --publisher-config routes events",
        "route.default=kafka,bootstrap-servers=k:9092 |"
            + " | with route.* keys, a publisher setting of --publisher-config must start with its"
            + " publisher's name (fake, kafka, rabbit, sqs), such as kafka.bootstrap-servers, but was"
            + " 'bootstrap-servers'",
        "route.default=kafka,kafka.bootstrap-servers=k:9092 | --topic-prefix shop."
            + " | --topic-prefix must not be given when --publisher-config routes events (route.*"
            + " keys): write it in the file prefixed by its publisher's name",
        "route.aggregate-type.payment=nats,route.default=kafka |"
            + " | route.aggregate-type.payment must name a publisher, one of fake, kafka, rabbit, sqs,"
            + " but was 'nats'",
        "route.aggregate-type.=rabbit |"
            + " | the type of route key 'route.aggregate-type.' must be 1 to 255 characters",
        "route.queue.payment=rabbit | | a route key of --publisher-config must be"
            + " route.event-type.TYPE, route.aggregate-type.TYPE or route.default but was"
            + " 'route.queue.payment'",
        "route.default=kafka,kafka.bootstrap-servers=k:9092,sqs.sqs-region=eu-west-1 |"
            + " | --publisher-config has settings for publisher sqs (sqs.*) but no route names it",
        "route.default=kafka,kafka.bootstrap-servers=k:9092,kafka.exchange=x |"
            + " | publisher kafka (kafka.* keys): a setting of publisher kafka must be one of",
        "route.default=rabbit,rabbit.exchange=x | | publisher rabbit (rabbit.* keys): --amqp-uri",
        " | | --publisher must be given, or route.* keys in --publisher-config, but neither was",
      })
  void aBadRoutedConfigExitsTwoBeforeTheRelayStarts(
      String entries, String flags, String message, @TempDir Path dir) throws Exception {
    List<String> args = new ArrayList<>(List.of("relay"));
    if (entries != null) {
      Path config =
          Files.writeString(
              dir.resolve("routes.properties"), String.join("\n", entries.split(",")) + "\n");
      args.addAll(List.of("--publisher-config", config.toString()));
    }
    if (flags != null) {
      args.addAll(List.of(flags.trim().split(" ")));
    }
    // A config accepted by mistake would leave the relay waiting for the database: stopped then.
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", UNREACHABLE)
            .runUntilWaitingForTheDatabase(args.toArray(String[]::new));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains(message);
    assertThat(r.relayLog()).noneMatch(m -> m.contains("starting"));
  }

  private static List<UUID> write(
      TestDatabase db, String aggregateType, String eventType, int count) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    List<OutboxEvent> events =
        IntStream.range(0, count)
            .mapToObj(i -> OutboxEvent.of(aggregateType, "a-" + i, eventType, "{}"))
            .toList();
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private static List<String> messages(ListAppender<ILoggingEvent> log, String text) {
    synchronized (log) {
      return log.list.stream()
          .map(ILoggingEvent::getFormattedMessage)
          .filter(m -> m.contains(text))
          .toList();
    }
  }
}
