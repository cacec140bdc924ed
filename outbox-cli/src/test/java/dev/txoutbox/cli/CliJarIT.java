package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The shaded jar as users run it: its own process, its own stdout and stderr. */
class CliJarIT {

  private static final Map<String, String> UNREACHABLE =
      Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x");

  /** An event type and aggregate id that would recolour, clear or split a terminal line. */
  private static final String HOSTILE_TYPE = "order\u001b[31m.paid\nforged-line";

  private static final String HOSTILE_ID = "o-1\r\u009b2J";

  @Test
  void helpAndVersionExitZero() throws Exception {
    try (JarProcess help = JarProcess.run(Map.of(), "--help");
        JarProcess version = JarProcess.run(Map.of(), "--version")) {
      assertThat(help.exitCode()).isZero();
      assertThat(help.out()).contains("Usage: txoutbox").contains("dead-letters").contains("relay");
      assertThat(version.exitCode()).isZero();
      assertThat(version.out()).startsWith("txoutbox ");
    }
  }

  @Test
  void anUnreachableDatabaseIsOneLineOnStderrAndExitOne() throws Exception {
    try (JarProcess p =
        JarProcess.run(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x"), "status", "--json")) {
      assertThat(p.exitCode()).isEqualTo(1);
      assertThat(p.err().lines())
          .containsExactly(
              "txoutbox: cannot reach the database at jdbc:postgresql://127.0.0.1:1/x:"
                  + " Connection refused");
      assertThat(p.out()).isEmpty();
    }
  }

  /**
   * Each publisher is built before the database is reached, so reaching the wait for the database
   * proves the shaded jar carries what the broker clients load at run time (service files, Netty).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "kafka --bootstrap-servers 127.0.0.1:1 --topic-prefix shop.",
        "sqs --sqs-region eu-west-1 --sqs-endpoint http://127.0.0.1:1 --queue order=orders",
        "rabbit --amqp-uri amqp://guest:guest@127.0.0.1:1/%2F --exchange x"
      })
  void everyPublisherCanBeBuiltFromTheJar(String publisher) throws Exception {
    List<String> args = new ArrayList<>(List.of("relay", "--publisher"));
    args.addAll(List.of(publisher.split(" ")));
    try (JarProcess p =
        JarProcess.runUntilWaitingForTheDatabase(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x"),
            args.toArray(String[]::new))) {
      assertThat(p.exitCode()).as(p.err()).isZero();
      assertThat(p.err().lines().filter(l -> l.contains(CliRunner.WAITING_FOR_THE_DATABASE)))
          .singleElement()
          .asString()
          .contains(
              "cannot reach the database at jdbc:postgresql://127.0.0.1:1/x: Connection refused");
      assertThat(p.err().lines().filter(l -> l.startsWith("txoutbox:"))).isEmpty();
    }
  }

  @Test
  void badArgumentsExitTwo() throws Exception {
    try (JarProcess p = JarProcess.run(Map.of(), "dead-letters", "purge", "--all", "--all")) {
      assertThat(p.exitCode()).isEqualTo(2);
      assertThat(p.err())
          .doesNotContain("Usage:")
          .endsWith("Try 'txoutbox dead-letters purge --help' for more information.\n");
    }
  }

  @Test
  void statusJsonIsAloneOnStdoutAndDeadLettersExitThree() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_jar")) {
      OutboxFixture outbox = new OutboxFixture(db);
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      try (JarProcess clean = JarProcess.run(env, "status", "--json", "--schema", db.schema())) {
        assertThat(clean.exitCode()).as(clean.err()).isZero();
        assertThat(clean.out())
            .startsWith(
                "{\"schema\":\""
                    + db.schema()
                    + "\",\"pending\":0,\"due_now\":0,\"dead_letters\":0,"
                    + "\"oldest_pending_age_seconds\":null,\"processed_last_minute\":0,"
                    + "\"events_table\":{\"size_bytes\":")
            .endsWith("}}" + System.lineSeparator());
      }
      outbox.deadLetters("order.rejected", 1);
      try (JarProcess dead = JarProcess.run(env, "status", "--json", "--schema", db.schema())) {
        assertThat(dead.exitCode()).isEqualTo(3);
        assertThat(dead.out()).contains("\"dead_letters\":1");
      }
    }
  }

  @Test
  void cleanupWithAnAgeBeyondTheLimitIsABadArgumentAndTouchesNothing() throws Exception {
    try (JarProcess p = JarProcess.run(UNREACHABLE, "cleanup", "--older-than", "1000000000d")) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(2);
      assertThat(p.err().lines().findFirst())
          .hasValue("--older-than must be at most 36500d but was 1000000000d");
      assertThat(p.err())
          .doesNotContain("cannot reach")
          .doesNotContain("Usage:")
          .contains("Try 'txoutbox cleanup --help'");
      assertThat(p.out()).isEmpty();
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--workers 65 | --workers must be between 1 and 64 but was 65",
        "--batch-size 0 | --batch-size must be between 1 and 10000 but was 0",
        "--min-poll-interval 300ms --max-poll-interval 10ms"
            + " | --max-poll-interval must be at least --min-poll-interval (300ms) but was 10ms",
        "--backoff-initial 0ms | --backoff-initial must be positive but was 0ms",
        "--relay-name bad/name | --relay-name must be 1 to 64 characters of [A-Za-z0-9_.-]",
        "--metrics-max-event-types 0"
            + " | --metrics-max-event-types must be between 1 and 10000 but was 0"
      })
  void relayArgumentErrorsNameTheFlagAndNothingStarts(String flags, String error) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "relay",
                "--publisher",
                "rabbit",
                "--amqp-uri",
                "amqp://guest:guest@127.0.0.1:1/%2F",
                "--exchange",
                "x"));
    args.addAll(List.of(flags.split(" ")));
    try (JarProcess p =
        JarProcess.runUntilWaitingForTheDatabase(UNREACHABLE, args.toArray(String[]::new))) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(2);
      assertThat(p.err().lines().findFirst())
          .hasValueSatisfying(l -> assertThat(l).startsWith(error));
      assertThat(p.err())
          .doesNotContain("starting")
          .doesNotContain("relay option")
          .doesNotContain("PT");
      assertThat(p.out()).isEmpty();
    }
  }

  /**
   * A publisher's error names its flag once and nothing starts. The messages are the plugins' own:
   * each row pins the flag and the words after it.
   */
  @ParameterizedTest
  @CsvSource(
      delimiterString = " | ",
      value = {
        "kafka | --bootstrap-servers | must be given for publisher kafka but was not",
        "kafka --bootstrap-servers k:9092 --send-timeout 0ms | --send-timeout"
            + " | must be positive but was 0ms",
        "rabbit --exchange x | --amqp-uri | must be given for publisher rabbit but was not",
        "rabbit --exchange x --amqp-uri http://h | --amqp-uri"
            + " | must be an AMQP URI;but was 'http://h';the scheme must be amqp or amqps",
        "rabbit --exchange x --amqp-uri amqp://h --send-timeout 0ms | --send-timeout"
            + " | must be positive but was 0ms",
        "sqs | --queue | must be given at least once for publisher sqs but was not"
      })
  void publisherErrorsNameTheFlagOnceAndNothingStarts(String publisher, String flag, String words)
      throws Exception {
    List<String> args = new ArrayList<>(List.of("relay", "--publisher"));
    args.addAll(List.of(publisher.split(" ")));
    try (JarProcess p =
        JarProcess.runUntilWaitingForTheDatabase(UNREACHABLE, args.toArray(String[]::new))) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(2);
      String first = p.err().lines().findFirst().orElse("");
      assertThat(first).containsPattern("(^|\\W)(" + flag + ")\\b");
      assertThat(first).contains(words.split(";"));
      assertThat(first.split("--publisher ", -1)).as(first).hasSizeLessThanOrEqualTo(2);
      assertThat(p.err()).doesNotContain("starting").doesNotContain("PT");
    }
  }

  /** The publishers and their flags come from the providers the jar carries. */
  @Test
  void relayHelpListsEveryPublisherInTheJarWithItsFlags() throws Exception {
    try (JarProcess p = JarProcess.run(Map.of(), "relay", "--help")) {
      assertThat(p.exitCode()).as(p.err()).isZero();
      String help = p.out();
      assertThat(section(help, "kafka"))
          .contains("--bootstrap-servers=HOST:PORT[,...]")
          .contains("--topic-prefix=PREFIX")
          .contains("--topic=TYPE=TOPIC")
          .contains("--producer=NAME=VALUE")
          .contains("--send-timeout=DURATION")
          .contains("Default: 30s.");
      assertThat(section(help, "rabbit"))
          .contains("--amqp-uri=URI")
          .contains("--exchange=EXCHANGE")
          .contains("--declare-exchange=TYPE")
          .contains("--send-timeout=DURATION")
          .contains("--unroutable-is-permanent");
      assertThat(section(help, "sqs"))
          .contains("--sqs-region=REGION")
          .contains("--sqs-endpoint=URL")
          .contains("--queue=TYPE=QUEUE")
          .contains("--send-timeout=DURATION")
          .contains("Default: 10s.");
      // The tests' own provider is not in the jar.
      assertThat(help).doesNotContain("fake");
    }
  }

  /** The part of {@code help} about {@code publisher}: from its heading to the next. */
  private static String section(String help, String publisher) {
    int from = help.indexOf("--publisher " + publisher + ":");
    assertThat(from).as("a section for " + publisher + " in " + help).isNotNegative();
    int next = help.indexOf("--publisher ", from + 1);
    return help.substring(from, next < 0 ? help.length() : next);
  }

  @Test
  void theStartLineComesAfterTheArgumentsAndShowsDurationsAsTheFlagsTakeThem() throws Exception {
    try (JarProcess p =
        JarProcess.runUntilWaitingForTheDatabase(
            UNREACHABLE,
            "relay",
            "--publisher",
            "rabbit",
            "--amqp-uri",
            "amqp://guest:guest@127.0.0.1:1/%2F",
            "--exchange",
            "x",
            "--min-poll-interval",
            "300ms",
            "--backoff-max",
            "90s",
            "--send-timeout",
            "1.5s")) {
      // The database is down: the relay waited for it, as for any outage, until stopped.
      assertThat(p.exitCode()).as(p.err()).isZero();
      List<String> lines = p.err().lines().toList();
      assertThat(lines.stream().filter(l -> l.contains(CliRunner.WAITING_FOR_THE_DATABASE)))
          .singleElement()
          .asString()
          .contains("cannot reach the database at jdbc:postgresql://127.0.0.1:1/x");
      assertThat(lines.stream().filter(l -> l.contains("starting")))
          .singleElement()
          .asString()
          .contains("relay 'default' starting")
          .contains("poll 300ms to 1s, backoff 1s to 1m 30s, shutdown timeout 30s")
          .contains("publisher rabbit{amqp-uri=****, exchange=x, send-timeout=1.5s}")
          .contains("metrics off");
      // Nor in the publisher's own lines: every duration reads as the flags take it.
      assertThat(p.err()).doesNotContain("PT");
    }
  }

  @Test
  void migrateIsQuietAndSaysWhatItApplied() throws Exception {
    String schema = "cli_jar_migrate_" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env =
        Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
    try {
      try (JarProcess first = JarProcess.run(env, "migrate", "--schema", schema);
          JarProcess again = JarProcess.run(env, "--schema", schema, "migrate")) {
        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.out()).isEqualTo("schema " + schema + ": 3 migrations applied\n");
        assertThat(first.err()).isEmpty();
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(again.out()).isEqualTo("schema " + schema + ": 0 migrations applied\n");
        assertThat(again.err()).isEmpty();
      }
    } finally {
      try (TestDatabase db = TestDatabase.createEmpty("cli_jar_drop", 1)) {
        db.execute("drop schema if exists " + schema + " cascade");
      }
    }
  }

  @Test
  void deadLetterTablesEscapeControlCharactersWhileJsonStaysExact() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_jar_ctl")) {
      hostileDeadLetter(db);
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      try (JarProcess list = JarProcess.run(env, "dead-letters", "list", "--schema", db.schema());
          JarProcess groups =
              JarProcess.run(env, "dead-letters", "groups", "--schema", db.schema());
          JarProcess json =
              JarProcess.run(env, "dead-letters", "list", "--json", "--schema", db.schema())) {
        for (JarProcess table : List.of(list, groups)) {
          assertThat(table.exitCode()).as(table.err()).isZero();
          assertThat(table.out().lines()).hasSize(2);
          assertThat(
                  table
                      .out()
                      .chars()
                      .filter(c -> c < 0x20 && c != '\n' || c == 0x7f || (c >= 0x80 && c <= 0x9f)))
              .isEmpty();
          assertThat(table.out()).contains("order\\u001b[31m.paid\\nforged-line");
        }
        assertThat(list.out())
            .contains("order/o-1\\r\\u009b2J")
            .contains("boom \\u001b]0;pwned\\u0007 now");
        assertThat(groups.out()).contains("boom \\u001b]?;pwned\\u0007 now");
        assertThat(json.exitCode()).isZero();
        assertThat(json.out())
            .contains("\"event_type\":\"order\\u001b[31m.paid\\nforged-line\"")
            .contains("\"aggregate_id\":\"o-1\\r\\u009b2J\"")
            .contains("\"last_error\":\"boom \\u001b]0;pwned\\u0007 now\"");
      }
    }
  }

  @Test
  void aRelayLogsHostileEventTypesOnOneLineEscaped() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_jar_log")) {
      write(db, HOSTILE_TYPE, HOSTILE_ID);
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      // An exchange nothing is bound to: the event is unroutable, so a dead letter at once.
      String exchange = "txoutbox-cli-unbound-" + UUID.randomUUID();
      try (JarProcess relay =
          JarProcess.start(
              env,
              "relay",
              "--schema",
              db.schema(),
              "--publisher",
              "rabbit",
              "--amqp-uri",
              RabbitQueue.URI,
              "--exchange",
              exchange,
              "--declare-exchange",
              "topic",
              "--unroutable-is-permanent")) {
        OutboxFixture outbox = new OutboxFixture(db);
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(60))
            .until(() -> !relay.isAlive() || outbox.count("dead_lettered_at is not null") == 1);
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(10))
            .until(() -> relay.err().contains("is a dead letter"));
        relay.terminate();
        assertThat(relay.waitFor()).as(relay.err()).isZero();
        String err = relay.err();
        assertThat(err.chars().filter(c -> c == 0x1b || c == 0x9b || c == '\r')).isEmpty();
        assertThat(err.lines().filter(l -> l.contains("is a dead letter")))
            .singleElement()
            .asString()
            .contains("order\\u001b[31m.paid\\nforged-line")
            .contains("event_type=\"order\\u001b[31m.paid\\nforged-line\"");
        assertThat(err.lines().filter(l -> l.startsWith("forged-line"))).isEmpty();
      } finally {
        deleteExchange(exchange);
      }
    }
  }

  private static void write(TestDatabase db, String eventType, String aggregateId) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .transaction(
            tx -> outbox.record(tx.dsl(), OutboxEvent.of("order", aggregateId, eventType, "{}")));
  }

  private static void hostileDeadLetter(TestDatabase db) {
    write(db, HOSTILE_TYPE, HOSTILE_ID);
    db.execute(
        "update "
            + db.schema()
            + ".outbox_events set dead_lettered_at = now(), attempts = 1,"
            + " last_error = E'boom \\x1b]0;pwned\\x07 now'");
  }

  private static void deleteExchange(String exchange) throws Exception {
    com.rabbitmq.client.ConnectionFactory factory = new com.rabbitmq.client.ConnectionFactory();
    factory.setUri(RabbitQueue.URI);
    try (com.rabbitmq.client.Connection c = factory.newConnection();
        com.rabbitmq.client.Channel ch = c.createChannel()) {
      ch.exchangeDelete(exchange);
    }
  }
}
