package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.testing.TestDatabase;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The relay command in-process, publishing to RabbitMQ, with its HTTP endpoint scraped as
 * Prometheus would, and the database cut away through a TCP proxy.
 */
class RelayCommandTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private TestDatabase db;
  private OutboxFixture outbox;
  private RabbitQueue rabbit;
  private TcpProxy proxy;
  private ListAppender<ILoggingEvent> relayLog;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create("cli_relay");
    outbox = new OutboxFixture(db);
    rabbit = new RabbitQueue();
    proxy = new TcpProxy(URI.create(TestDatabase.jdbcUrl().substring(5)).getPort()).start();
    relayLog = new ListAppender<>();
    relayLog.start();
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).addAppender(relayLog);
    ((Logger) LoggerFactory.getLogger(MetricsServer.class)).addAppender(relayLog);
  }

  @AfterEach
  void tearDown() throws Exception {
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).detachAppender(relayLog);
    ((Logger) LoggerFactory.getLogger(MetricsServer.class)).detachAppender(relayLog);
    proxy.close();
    rabbit.close();
    db.close();
  }

  @Test
  void listenWakesTheRelayOnNotificationsFromTheTrigger() throws Exception {
    dev.txoutbox.schema.OutboxSchema.migrateNotifyTrigger(db.dataSource(), db.schema());
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli,
            TestDatabase.jdbcUrl(),
            RabbitQueue.URI,
            "--listen",
            // Polling every 5 minutes: only a notification can publish within the test.
            "--min-poll-interval",
            "5m",
            "--max-poll-interval",
            "5m");
    await()
        .atMost(WAIT)
        .until(
            () ->
                org.jooq
                        .impl
                        .DSL
                        .using(db.dataSource(), org.jooq.SQLDialect.POSTGRES)
                        .resultQuery(
                            "select count(*) from pg_stat_activity where query = ?",
                            "LISTEN \"txoutbox_" + db.schema() + "\"")
                        .fetchOne(0, Integer.class)
                    == 1);
    // Two rounds: the first may meet the listener's catch-up wake-up after it connected; after
    // that the relay waits 5 minutes, so only a notification can publish the second.
    for (int round = 1; round <= 2; round++) {
      int expected = round * 3;
      outbox.pending("order.created", 3);
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == expected);
    }
    cli.stop.countDown();
    CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.err()).isZero();
  }

  @Test
  void servesMetricsAndHealthWhileRelayingAndStopsWithExitZero() throws Exception {
    List<UUID> ids = outbox.pending("order.created", 300);
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");

    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli,
            proxiedJdbcUrl(),
            RabbitQueue.URI,
            "--batch-size",
            "50",
            "--max-poll-interval",
            "200ms",
            "--metrics-host",
            "127.0.0.1",
            "--metrics-refresh",
            "200ms",
            "--metrics-port",
            "0");
    int port = await().atMost(WAIT).until(this::metricsPort, p -> p > 0);

    await().atMost(WAIT).until(() -> rabbit.receivedCount() == ids.size());
    assertThat(rabbit.received())
        .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
    await().atMost(WAIT).until(() -> outbox.count("processed_at is null") == 0);

    await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 200);
    HttpResponse<String> metrics = MetricsEndpoint.get(port, "/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type"))
        .hasValue(MetricsServer.PROMETHEUS_TEXT);
    assertThat(metrics.body())
        .contains("# HELP outbox_events_published_total ")
        .contains("outbox_events_published_total{relay=\"default\"} 300.0")
        .contains("outbox_batch_duration_seconds_bucket{relay=\"default\",")
        .contains("outbox_events_pending{relay=\"default\"}")
        .contains("outbox_dead_letters{relay=\"default\"}")
        .contains("outbox_oldest_pending_age_seconds{relay=\"default\"}")
        .contains("hikaricp_connections")
        .contains("jvm_memory_used_bytes");
    await()
        .atMost(WAIT)
        .until(
            () ->
                MetricsEndpoint.get(port, "/metrics")
                    .body()
                    .contains("outbox_events_pending{relay=\"default\"} 0.0"));
    assertThat(MetricsEndpoint.get(port, "/nothing-here").statusCode()).isEqualTo(404);

    proxy.stop();
    await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 503);
    assertThat(MetricsEndpoint.get(port, "/health").body()).startsWith("database unreachable");

    proxy.start();
    await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 200);

    cli.stop.countDown();
    CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEmpty();
    assertThatPortIsClosed(port);
  }

  @Test
  void healthBorrowsFromThePoolAndTheEndpointListensOnLoopbackByDefault() throws Exception {
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(cli, proxiedJdbcUrl(), RabbitQueue.URI, "--metrics-port", "0");
    int port = await().atMost(WAIT).until(this::metricsPort, p -> p > 0);
    await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 200);
    // The start-up probe, then the pool of workers + 2 = 3 connections, filled in the background.
    await().atMost(WAIT).until(() -> proxy.accepted() == 4);

    for (int i = 0; i < 20; i++) {
      HttpResponse<String> health = MetricsEndpoint.get(port, "/health");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).isEqualTo("ok\n");
    }
    int opened = proxy.accepted() - 4;
    System.out.printf("connections opened by 20 /health requests: %d%n", opened);
    assertThat(opened).isZero();

    // Bound to 127.0.0.1 only: another loopback address is refused.
    assertThat(messages()).anyMatch(m -> m.contains("on http://127.0.0.1:" + port));
    try (java.net.Socket other = new java.net.Socket()) {
      assertThatThrownBy(
              () -> other.connect(new java.net.InetSocketAddress("127.0.0.2", port), 2_000))
          .isInstanceOf(java.net.ConnectException.class);
    }

    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
  }

  @Test
  void logsTheEffectiveConfigurationOnceWithSecretsMasked() throws Exception {
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli,
            proxiedJdbcUrl() + "?password=db-s3cret",
            "amqp://guest:guest@127.0.0.1:5672/%2F",
            "--relay-name",
            "orders",
            "--workers",
            "2");
    await().atMost(WAIT).until(() -> messages().stream().anyMatch(m -> m.contains("running")));

    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
    List<String> starting = messages().stream().filter(m -> m.contains("starting")).toList();
    assertThat(starting).hasSize(1);
    assertThat(starting.get(0))
        .contains("relay 'orders' starting")
        .contains("password=****")
        // Declared secret by the rabbit provider: hidden whole.
        .contains("publisher rabbit{amqp-uri=****, exchange=")
        .contains("workers 2")
        .contains("pool size 4")
        .contains("poll 25ms to 1s, backoff 1s to 5m, shutdown timeout 30s")
        .doesNotContain("PT")
        .doesNotContain("db-s3cret")
        .doesNotContain("guest:guest");
  }

  @Test
  void aRelayStartedWhileTheDatabaseIsDownWaitsForItAndThenPublishes() throws Exception {
    proxy.stop(); // the database cannot be reached: the proxy refuses connections
    List<UUID> ids = outbox.pending("order.created", 3);
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli, proxiedJdbcUrl(), "amqp://guest:guest@127.0.0.1:5672/%2F", "--workers", "1");
    await()
        .atMost(WAIT)
        .until(
            () ->
                messages().stream().anyMatch(m -> m.contains(CliRunner.WAITING_FOR_THE_DATABASE)));
    assertThat(run).isNotDone();

    proxy.start();
    await().atMost(WAIT).until(() -> rabbit.receivedCount() == ids.size());
    assertThat(messages().stream().filter(m -> m.contains(CliRunner.WAITING_FOR_THE_DATABASE)))
        .singleElement()
        .asString()
        .contains("cannot reach the database");
    assertThat(messages()).anyMatch(m -> m.contains("the database answers after"));
    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
  }

  /**
   * A primary that goes silent mid-run (packets dropped, the sockets kept open) used to leave the
   * worker blocked in a read for good. With the relay's socket timeout (60 s, the default its URL
   * does not override) the read fails, and the relay publishes again once a new connection works:
   * within 90 s of forwarding resuming (the 60 s timeout of the read already waiting, a retry
   * backoff of at most 10 s, a new connection).
   */
  @Test
  void aRelayWhosePrimaryGoesSilentPublishesAgainOnceANewConnectionWorks() throws Exception {
    outbox.pending("order.created", 3);
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli,
            proxiedJdbcUrl(),
            RabbitQueue.URI,
            "--workers",
            "1",
            "--max-poll-interval",
            "200ms");
    await().atMost(WAIT).until(() -> rabbit.receivedCount() == 3);
    assertThat(messages().stream().filter(m -> m.contains("starting")))
        .singleElement()
        .asString()
        .contains(", url defaults connectTimeout=10&socketTimeout=60&tcpKeepAlive=true;");

    try {
      long dropped = proxy.droppedBytes();
      proxy.silence();
      outbox.pending("order.created", 3); // written past the proxy: the database itself is fine
      // The relay's next poll went into the silence.
      await().atMost(WAIT).until(() -> proxy.droppedBytes() > dropped);
      proxy.forward();

      await().atMost(Duration.ofSeconds(90)).until(() -> rabbit.receivedCount() == 6);
    } finally {
      cli.stop.countDown();
    }
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
  }

  @Test
  void aRelayRefusedByTheDatabaseForGoodExitsOneWithoutWaiting() throws Exception {
    URI server = URI.create(TestDatabase.jdbcUrl().substring(5));
    String base = "jdbc:postgresql://" + server.getHost() + ":" + server.getPort() + "/";
    for (String[] refusal :
        new String[][] {
          {base + "txoutbox_no_such_database", "postgres", "does not exist"},
          {base + server.getPath().substring(1), "txoutbox_no_such_role", "does not exist"}
        }) {
      CliRunner.Result r =
          new CliRunner()
              .env("OUTBOX_DB_USER", refusal[1])
              .runUntilWaitingForTheDatabase(
                  "relay",
                  "--jdbc-url",
                  refusal[0],
                  "--publisher",
                  "rabbit",
                  "--amqp-uri",
                  RabbitQueue.URI,
                  "--exchange",
                  rabbit.exchange);

      // Waiting cannot fix these: one line and exit 1, never the outage's wait.
      assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.FAILURE);
      assertThat(r.errLines())
          .singleElement()
          .asString()
          .startsWith("txoutbox: cannot connect to the database at " + refusal[0])
          .contains(refusal[2]);
      assertThat(r.relayLogLines(CliRunner.WAITING_FOR_THE_DATABASE)).isEmpty();
    }
  }

  @Test
  void aRelayWithWrongBrokerCredentialsSaysSoAtStartAndKeepsRunning() throws Exception {
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli, proxiedJdbcUrl(), "amqp://guest:wr0ng-pa55@127.0.0.1:5672/%2F", "--workers", "1");
    await().atMost(WAIT).until(() -> messages().stream().anyMatch(m -> m.contains("broker check")));

    List<ILoggingEvent> checks =
        relayLog.list.stream()
            .filter(e -> e.getFormattedMessage().contains("broker check"))
            .toList();
    assertThat(checks).hasSize(1);
    assertThat(checks.get(0).getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
    assertThat(checks.get(0).getFormattedMessage())
        .contains("broker check failed")
        .containsIgnoringCase("authentication")
        .contains("keeps running")
        .doesNotContain("wr0ng-pa55");
    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
  }

  @Test
  void aRelayWhoseBrokerAcceptsItSaysSoOnceAtStart() throws Exception {
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli, proxiedJdbcUrl(), "amqp://guest:guest@127.0.0.1:5672/%2F", "--workers", "1");
    await().atMost(WAIT).until(() -> messages().stream().anyMatch(m -> m.contains("broker check")));

    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
    List<ILoggingEvent> checks =
        relayLog.list.stream()
            .filter(e -> e.getFormattedMessage().contains("broker check"))
            .toList();
    assertThat(checks).hasSize(1);
    assertThat(checks.get(0).getLevel()).isEqualTo(ch.qos.logback.classic.Level.INFO);
    assertThat(checks.get(0).getFormattedMessage()).doesNotContain("guest:guest");
  }

  /** Runs {@code txoutbox relay} to this test's exchange in the background until stopped. */
  private CompletableFuture<CliRunner.Result> startRelay(
      CliRunner cli, String jdbcUrl, String amqpUri, String... options) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "relay",
                "--jdbc-url",
                jdbcUrl,
                "--schema",
                db.schema(),
                "--publisher",
                "rabbit",
                "--amqp-uri",
                amqpUri,
                "--exchange",
                rabbit.exchange));
    args.addAll(List.of(options));
    return CompletableFuture.supplyAsync(() -> cli.run(args.toArray(String[]::new)));
  }

  /** The port the relay's HTTP endpoint logged, or 0 before it did. */
  private int metricsPort() {
    return MetricsEndpoint.port(String.join(" ", messages()));
  }

  private List<String> messages() {
    return relayLog.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  private String proxiedJdbcUrl() {
    String url = TestDatabase.jdbcUrl();
    URI uri = URI.create(url.substring(5));
    return "jdbc:postgresql://127.0.0.1:" + proxy.port() + uri.getPath();
  }

  private static void assertThatPortIsClosed(int port) throws IOException {
    try (ServerSocket s = new ServerSocket(port)) {
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }
}
