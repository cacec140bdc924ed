package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.testing.TestDatabase;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Credentials of every shape given to the jar never come out of it: not on stdout, stderr (logs
 * included), {@code /metrics}, {@code /health}, nor in the errors it stores. Each secret is made of
 * fragments that occur nowhere else, and every fragment of three characters or more is looked for,
 * so a secret shown in part is caught too.
 */
class SecretsJarIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** In a JDBC query, raw: a comma, a semicolon, an apostrophe and a space. */
  private static final String JDBC_QUERY_PASSWORD = "Qx7,Zk9;Wm3'Rt5 Yb8";

  /** In the user info of a JDBC URL, which the driver takes for a host name. */
  private static final String JDBC_USER_INFO_PASSWORD = "Ui4Pw2Xa";

  /** From OUTBOX_DB_PASSWORD. */
  private static final String ENV_PASSWORD = "Ev6Pq1Zr";

  /** In an AMQP URI, percent-encoded as it must be; raw it is refused. */
  private static final String AMQP_PASSWORD = "Am5/Bn6#Cp7?Dq8";

  /** In a Kafka JAAS configuration, with a space and a semicolon. */
  private static final String JAAS_PASSWORD = "Js2 Kt3;Lu4";

  private static final String SSL_PASSWORD = "Ss9Tt8Uv";

  private static final List<String> ALL =
      List.of(
          JDBC_QUERY_PASSWORD,
          JDBC_USER_INFO_PASSWORD,
          ENV_PASSWORD,
          AMQP_PASSWORD,
          JAAS_PASSWORD,
          SSL_PASSWORD);

  static Stream<Arguments> unusableDatabases() {
    String unreachable = "jdbc:postgresql://127.0.0.1:1/x";
    return Stream.of(
        Arguments.of(unreachable + "?password=" + JDBC_QUERY_PASSWORD, 1),
        Arguments.of(unreachable + "?user=app&password=" + JDBC_QUERY_PASSWORD + "&ssl=false", 1),
        Arguments.of(unreachable + "?password=" + encode(JDBC_QUERY_PASSWORD), 1),
        // The driver reads user:password@ as the host and reports it unknown.
        Arguments.of(
            "jdbc:postgresql://app:" + JDBC_USER_INFO_PASSWORD + "@127.0.0.1:5432/txoutbox_test",
            1),
        // ... or as a port it cannot parse, warning through java.util.logging first.
        Arguments.of("jdbc:postgresql://app:" + JDBC_USER_INFO_PASSWORD + "@nohost.invalid/db", 2),
        Arguments.of("mysql://app:" + JDBC_USER_INFO_PASSWORD + "@db/app", 2));
  }

  @ParameterizedTest
  @MethodSource("unusableDatabases")
  void aDatabaseErrorNeverShowsAPassword(String url, int exitCode) throws Exception {
    try (JarProcess p =
        JarProcess.run(
            Map.of("OUTBOX_JDBC_URL", url, "OUTBOX_DB_PASSWORD", ENV_PASSWORD),
            "status",
            "--json")) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(exitCode);
      assertThat(p.err().lines().filter(l -> l.startsWith("txoutbox:") || l.startsWith("--")))
          .as(p.err())
          .hasSize(1);
      assertThat(p.err()).contains(SecretMasking.MASK);
      assertNoSecret("stderr", p.err());
      assertNoSecret("stdout", p.out());
    }
  }

  /**
   * Command lines holding the password S3CRET that the argument parser refuses (exit 2), or, with
   * the unbalanced quote, accepts with a warning (then the relay starts, logging its settings, and
   * waits for the unreachable database until SIGTERM: exit 0).
   */
  static Stream<Arguments> refusedCommandLines() {
    String jaas =
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required";
    return Stream.of(
        // A missing closing quote: picocli's tracer quoted the rest ("Unbalanced quotes in [..]").
        Arguments.of(2, List.of("--producer", jaas + " username=\"u\" password=\"S3CRET")),
        Arguments.of(
            0,
            List.of(
                "--bootstrap-servers",
                "127.0.0.1:1",
                "--producer",
                jaas + " username=\"u\" password=\"S3CRET")),
        // An unknown flag: its value is an unmatched argument, quoted whole.
        Arguments.of(2, List.of("--kafka-property", "sasl.jaas.config=broken S3CRET")),
        Arguments.of(2, List.of("--kafka-property=sasl.jaas.config=broken S3CRET")),
        // A mistyped flag: quoted, with picocli's suggestion.
        Arguments.of(2, List.of("--producr", "sasl.jaas.config=broken S3CRET")),
        // The option the CLI deliberately lacks.
        Arguments.of(2, List.of("--password", "S3CRET")),
        Arguments.of(2, List.of("--db-password=S3CRET")),
        // A value the flag's type refuses, quoted in the conversion error.
        Arguments.of(2, List.of("--batch-size", "password=S3CRET")),
        Arguments.of(2, List.of("--producer", "S3CRET")),
        // A URI given without its flag: an unmatched argument.
        Arguments.of(2, List.of("amqp://app:S3CRET@rabbit.example:5672/%2F")));
  }

  @ParameterizedTest
  @MethodSource("refusedCommandLines")
  void theArgumentParserNeverShowsASecret(int exitCode, List<String> flags) throws Exception {
    List<String> args = new ArrayList<>(List.of("relay", "--publisher", "kafka"));
    args.addAll(flags);
    try (JarProcess p =
        JarProcess.runUntilWaitingForTheDatabase(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x"),
            args.toArray(String[]::new))) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(exitCode);
      if (exitCode == 0) {
        // Accepted: the start line names the producer setting, its secret masked.
        assertThat(p.err()).contains("starting").contains(CliRunner.WAITING_FOR_THE_DATABASE);
      }
      assertThat(p.err()).as("stderr").isNotBlank().doesNotContain("S3CRET");
      assertThat(p.out()).as("stdout").doesNotContain("S3CRET");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"Pa/ss9Wq", "Pa#ss9Wq", "Pa?ss9Wq", "Pa@ss9Wq"})
  void anAmqpPasswordWithUnencodedDelimitersIsRefusedWithoutShowingIt(String password)
      throws Exception {
    try (JarProcess p =
        JarProcess.runUntilWaitingForTheDatabase(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x"),
            "relay",
            "--publisher",
            "rabbit",
            "--amqp-uri",
            "amqp://app:" + password + "@rabbit.example:5672/%2F",
            "--exchange",
            "x")) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(2);
      // The plugin's message, the password masked and the hint whole.
      String first = p.err().lines().findFirst().orElse("");
      assertThat(first)
          .startsWith("--amqp-uri must be an AMQP URI")
          .contains("amqp://app:****@rabbit.example:5672/%2F")
          .contains("percent-encode / # ? @ as %2F %23 %3F %40 in the user name and password");
      assertThat(p.err()).doesNotContain("ss9Wq");
    }
  }

  @Test
  void aRunningRabbitRelayNeverShowsACredential() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_secrets");
        TcpProxy proxy =
            new TcpProxy(URI.create(TestDatabase.jdbcUrl().substring(5)).getPort()).start()) {
      // One event, so the publisher tries the (unreachable) broker and records an error.
      new OutboxFixture(db).pending("order.created", 1);
      String url =
          "jdbc:postgresql://127.0.0.1:"
              + proxy.port()
              + URI.create(TestDatabase.jdbcUrl().substring(5)).getPath()
              + "?user=postgres&password="
              + JDBC_QUERY_PASSWORD;
      List<String> bodies = new ArrayList<>();
      try (JarProcess relay =
          JarProcess.start(
              Map.of("OUTBOX_JDBC_URL", url, "OUTBOX_DB_PASSWORD", ENV_PASSWORD),
              "relay",
              "--schema",
              db.schema(),
              "--publisher",
              "rabbit",
              "--amqp-uri",
              "amqp://guest:" + encode(AMQP_PASSWORD) + "@127.0.0.1:1/%2F",
              "--exchange",
              "x",
              "--send-timeout",
              "1s",
              "--metrics-port",
              "0",
              "--health-timeout",
              "1s")) {
        int port = await().atMost(WAIT).until(() -> MetricsEndpoint.port(relay.err()), p -> p > 0);
        // The publisher has tried the broker: its failure names the (password-less) endpoint.
        await().atMost(WAIT).until(() -> relay.err().contains("amqp://guest@127.0.0.1:1"));
        await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 200);
        bodies.add(MetricsEndpoint.get(port, "/health").body());
        HttpResponse<String> metrics = MetricsEndpoint.get(port, "/metrics");
        assertThat(metrics.body()).contains("outbox_events_published_total");
        bodies.add(metrics.body());

        proxy.stop();
        await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 503);
        bodies.add(MetricsEndpoint.get(port, "/health").body());
        proxy.start();
        await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 200);

        relay.terminate();
        assertThat(relay.waitFor()).as(relay.err()).isZero();
        assertThat(relay.err()).contains("password=****").contains("amqp-uri=****");
        assertNoSecret("stderr", relay.err());
        assertNoSecret("stdout", relay.out());
        for (String body : bodies) {
          assertNoSecret("HTTP body", body);
        }
        assertNoSecret("last_error", lastErrors(db));
      }
    }
  }

  @Test
  void aRunningKafkaRelayNeverShowsItsSaslOrSslPasswords(@TempDir Path dir) throws Exception {
    Path config =
        Files.writeString(
            dir.resolve("kafka.properties"),
            String.join(
                "\n",
                "bootstrap-servers=127.0.0.1:1",
                "topic-prefix=shop.",
                "producer.security.protocol=SASL_PLAINTEXT",
                "producer.sasl.mechanism=PLAIN",
                "producer.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule"
                    + " required username=\"outbox\" password=\""
                    + JAAS_PASSWORD
                    + "\";",
                "producer.ssl.key.password=" + SSL_PASSWORD,
                ""));
    try (TestDatabase db = TestDatabase.create("cli_secrets_kafka");
        JarProcess relay =
            JarProcess.start(
                Map.of(
                    "OUTBOX_JDBC_URL",
                    TestDatabase.jdbcUrl(),
                    "OUTBOX_DB_USER",
                    "postgres",
                    "OUTBOX_DB_PASSWORD",
                    ENV_PASSWORD),
                "relay",
                "--schema",
                db.schema(),
                "--publisher",
                "kafka",
                "--publisher-config",
                config.toString())) {
      await().atMost(WAIT).until(() -> !relay.isAlive() || relay.err().contains("running"));
      relay.terminate();
      assertThat(relay.waitFor()).as(relay.err()).isZero();
      assertThat(relay.err()).contains("producer.sasl.jaas.config=****").contains("kafka{");
      assertNoSecret("stderr", relay.err());
      assertNoSecret("stdout", relay.out());
    }
  }

  private static String lastErrors(TestDatabase db) {
    return String.valueOf(
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .fetchValue(
                "select string_agg(coalesce(last_error, ''), ' ') from "
                    + db.schema()
                    + ".outbox_events"));
  }

  /** No secret, whole, percent-encoded or in fragments of three characters or more. */
  private static void assertNoSecret(String where, String text) {
    for (String secret : ALL) {
      List<String> shapes = new ArrayList<>(List.of(secret, encode(secret)));
      for (String fragment : secret.split("[^A-Za-z0-9]+")) {
        if (fragment.length() >= 3) {
          shapes.add(fragment);
        }
      }
      for (String shape : shapes) {
        assertThat(text).as(where + " shows a part of " + secret).doesNotContain(shape);
      }
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
