package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txoutbox.testing.TestDatabase;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The {@code fleet} commands in-process against the local PostgreSQL: the registry's entries added,
 * listed and removed as references to their secrets, and a node run until stopped, publishing to
 * RabbitMQ and reporting its assignments on its HTTP endpoint.
 */
class FleetCommandsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();

  private TestDatabase db;
  private OutboxFixture outbox;
  private String control;
  private ListAppender<ILoggingEvent> log;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("cli_fleet");
    outbox = new OutboxFixture(db);
    control = db.schema() + "_control";
    log = new ListAppender<>();
    log.start();
    ((Logger) LoggerFactory.getLogger(MetricsServer.class)).addAppender(log);
  }

  @AfterEach
  void tearDown() {
    ((Logger) LoggerFactory.getLogger(MetricsServer.class)).detachAppender(log);
    db.execute("DROP SCHEMA IF EXISTS " + control + " CASCADE");
    db.close();
  }

  private CliRunner cli() {
    return new CliRunner().withArgs("--jdbc-url", TestDatabase.jdbcUrl(), "--user", "postgres");
  }

  private List<String> fleet(String command, String... args) {
    List<String> all = new ArrayList<>(List.of("fleet", command, "--control-schema", control));
    all.addAll(List.of(args));
    return all;
  }

  private CliRunner.Result run(String command, String... args) {
    return cli().run(fleet(command, args).toArray(String[]::new));
  }

  @Test
  void entriesAreAddedListedAndRemovedHoldingOnlyReferencesToTheirSecrets() throws Exception {
    CliRunner.Result empty = run("list");
    assertThat(empty.exitCode()).as(empty.err()).isEqualTo(1);
    assertThat(empty.err())
        .startsWith("txoutbox: the control database has no fleet registry in schema " + control);

    CliRunner.Result added =
        run(
            "add",
            "billing",
            "--outbox-url",
            "jdbc:postgresql://db-a:5432/app",
            "--outbox-user",
            "relay",
            "--outbox-password",
            "env:BILLING_PASSWORD",
            "--outbox-schema",
            "billing",
            "--weight",
            "3",
            "--publisher",
            "rabbit",
            "--amqp-uri",
            "env:AMQP_URI",
            "--exchange",
            "billing-events");
    assertThat(added.exitCode()).as(added.err()).isZero();
    assertThat(added.out()).isEqualTo("added outbox billing (version 1)" + System.lineSeparator());
    CliRunner.Result wal =
        run(
            "add",
            "ledger",
            "--outbox-url",
            "jdbc:postgresql://db-b:5432/ledger",
            "--kind",
            "wal",
            "--slot",
            "ledger_slot",
            "--disabled",
            "--publisher",
            "kafka",
            "--bootstrap-servers",
            "kafka:9092",
            "--producer",
            "sasl.jaas.config=file:/run/secrets/jaas");
    assertThat(wal.exitCode()).as(wal.err()).isZero();

    CliRunner.Result table = run("list");
    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.out().lines().toList())
        .hasSize(3)
        .satisfies(
            lines -> {
              assertThat(lines.get(0)).startsWith("NAME").contains("PASSWORD", "PUBLISHER");
              assertThat(lines.get(1))
                  .startsWith("billing")
                  .contains(
                      "polling",
                      "yes",
                      "3",
                      "jdbc:postgresql://db-a:5432/app",
                      "relay",
                      "env:BILLING_PASSWORD",
                      "billing",
                      "rabbit {amqp-uri=env:AMQP_URI, exchange=billing-events}");
              assertThat(lines.get(2))
                  .startsWith("ledger")
                  .contains("wal (slot ledger_slot)", "no", "public")
                  // a line holding a secret's name and a value is masked whole, reference or not
                  .contains("producer.sasl.jaas.config=****");
            });
    JsonNode json = JSON.readTree(run("list", "--json").out());
    assertThat(json).hasSize(2);
    assertThat(json.get(0).path("password").asText()).isEqualTo("env:BILLING_PASSWORD");
    assertThat(json.get(0).at("/publisher_settings/amqp-uri").asText()).isEqualTo("env:AMQP_URI");
    // stored as the reference it is (this JVM's output hides it: the add command's argument was
    // named like a secret, and the CLI's masking is process-wide)
    assertThat(
            controlValue(
                "select publisher_settings->>'producer.sasl.jaas.config' from ${control}"
                    + ".fleet_outboxes where name = 'ledger'"))
        .isEqualTo("file:/run/secrets/jaas");
    assertThat(json.get(1).path("kind").asText()).isEqualTo("wal");
    assertThat(json.get(1).path("enabled").asBoolean()).isFalse();

    CliRunner.Result twice =
        run("add", "ledger", "--outbox-url", "jdbc:postgresql://db-c/x", "--publisher", "kafka");
    assertThat(twice.exitCode()).isEqualTo(1);
    assertThat(twice.err()).contains("outbox ledger must not exist to be added", "--update");
    CliRunner.Result updated =
        run(
            "add",
            "ledger",
            "--update",
            "--outbox-url",
            "jdbc:postgresql://db-c/x",
            "--publisher",
            "kafka",
            "--bootstrap-servers",
            "kafka:9092");
    assertThat(updated.exitCode()).as(updated.err()).isZero();
    assertThat(updated.out()).startsWith("updated outbox ledger (version 2)");

    CliRunner.Result removed = run("remove", "billing");
    assertThat(removed.exitCode()).as(removed.err()).isZero();
    assertThat(removed.out()).startsWith("removed outbox billing");
    CliRunner.Result again = run("remove", "billing");
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err()).contains("outbox billing is not in the fleet's registry");
    assertThat(JSON.readTree(run("list", "--json").out()))
        .extracting(n -> n.path("name").asText())
        .containsExactly("ledger");
  }

  @Test
  void aSecretWhereAReferenceBelongsIsRefusedWithoutBeingShownOrStored() {
    assertThat(refusedAdd("--outbox-password", "hunter2-s3cret"))
        .startsWith("--outbox-password must be a reference to a secret, env:VARIABLE_NAME or");
    assertThat(refusedAdd("--amqp-uri", "amqp://relay:hunter2-s3cret@rabbit:5672/%2F"))
        .contains("amqp-uri must not carry a password");
    assertThat(
            refusedAdd("--outbox-url", "jdbc:postgresql://db-a:5432/app?password=hunter2-s3cret"))
        .contains("--outbox-url must not carry a password");
    assertThat(refusedAdd("--topic", "orders")).contains("topic");
    // nothing was written: the registry does not even exist
    assertThat(run("list").err()).contains("has no fleet registry");
  }

  /**
   * The stderr of {@code fleet add billing} to RabbitMQ with {@code flags} (over the defaults),
   * refused as bad arguments; it never shows the secret {@code hunter2-s3cret}.
   */
  private String refusedAdd(String... flags) {
    List<String> args = new ArrayList<>(List.of("billing", "--publisher", "rabbit"));
    args.addAll(List.of(flags));
    if (!args.contains("--outbox-url")) {
      args.addAll(List.of("--outbox-url", "jdbc:postgresql://db-a:5432/app"));
    }
    CliRunner.Result r = run("add", args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).doesNotContain("hunter2");
    return r.err();
  }

  @Test
  void theOutboxFlagsOfOtherCommandsAreRefused() {
    CliRunner.Result r = cli().run("--schema", "billing", "fleet", "list");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err())
        .startsWith("--schema does not apply to fleet commands")
        .contains("--outbox-schema");
    CliRunner.Result ttl = run("run", "--lease-ttl", "500ms");
    assertThat(ttl.exitCode()).isEqualTo(2);
    assertThat(ttl.err()).startsWith("--lease-ttl must be at least 1s but was 500ms");
    CliRunner.Result name = run("run", "--relay-name", "x");
    assertThat(name.exitCode()).isEqualTo(2);
    assertThat(name.err()).startsWith("--relay-name does not apply to fleet run");
    CliRunner.Result pool = run("run", "--workers", "4", "--pool-size", "2");
    assertThat(pool.exitCode()).isEqualTo(2);
    assertThat(pool.err())
        .startsWith("--pool-size must be between --workers (4) and 100 but was 2");
    CliRunner.Result policy = run("run", "--on-control-loss", "panic");
    assertThat(policy.exitCode()).isEqualTo(2);
    assertThat(policy.err()).startsWith("--on-control-loss");
  }

  @Test
  void aNodeServesTheRegistrysOutboxesReportsThemAndFreesThemOnStop() throws Exception {
    try (RabbitQueue rabbit = new RabbitQueue()) {
      CliRunner.Result added =
          run(
              "add",
              "orders",
              "--outbox-url",
              TestDatabase.jdbcUrl(),
              "--outbox-user",
              "postgres",
              "--outbox-schema",
              db.schema(),
              "--publisher",
              "rabbit",
              "--amqp-uri",
              "env:FLEET_TEST_AMQP_URI",
              "--exchange",
              rabbit.exchange);
      assertThat(added.exitCode()).as(added.err()).isZero();
      CliRunner node = cli().env("FLEET_TEST_AMQP_URI", RabbitQueue.URI);
      CompletableFuture<CliRunner.Result> running =
          CompletableFuture.supplyAsync(
              () ->
                  node.run(
                      fleet(
                              "run",
                              "--node-id",
                              "node-1",
                              "--lease-ttl",
                              "3s",
                              "--scan-interval",
                              "500ms",
                              "--max-poll-interval",
                              "200ms",
                              "--metrics-port",
                              "0")
                          .toArray(String[]::new)));
      int port = await().atMost(WAIT).until(this::metricsPort, p -> p > 0 || running.isDone());
      assertThat(running).isNotDone();
      await()
          .atMost(WAIT)
          .until(
              () ->
                  JSON.readTree(MetricsEndpoint.get(port, FleetRunCommand.ASSIGNMENTS_PATH).body())
                      .at("/assignments/0/state")
                      .asText()
                      .equals("running"));
      HttpResponse<String> fleet = MetricsEndpoint.get(port, FleetRunCommand.ASSIGNMENTS_PATH);
      assertThat(fleet.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
      JsonNode doc = JSON.readTree(fleet.body());
      assertThat(doc.path("node").asText()).isEqualTo("node-1");
      assertThat(doc.path("renewing").asBoolean()).isTrue();
      assertThat(doc.path("assignments")).hasSize(1);
      assertThat(doc.at("/assignments/0/outbox").asText()).isEqualTo("orders");
      assertThat(doc.at("/assignments/0/term").asLong()).isEqualTo(1);
      assertThat(MetricsEndpoint.get(port, "/health").statusCode()).isEqualTo(200);

      List<UUID> ids = outbox.pending("order.created", 25);
      await()
          .atMost(WAIT)
          .until(() -> rabbit.received().containsAll(ids.stream().map(UUID::toString).toList()));
      // the relay's meters carry the outbox and the node
      String metrics = MetricsEndpoint.get(port, "/metrics").body();
      assertThat(metrics)
          .containsPattern("outbox_events_published_total\\{[^}]*outbox=\"orders\"")
          .contains("fleet_node=\"node-1\"");

      node.stop.countDown(); // as SIGTERM
      CliRunner.Result r = running.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(r.exitCode()).as(r.err()).isZero();
      // the lease was freed at once, for the other nodes to take at their next scan
      assertThat(
              controlValue(
                  "select count(*)::text from ${control}.fleet_leases where owner is not null"))
          .isEqualTo("0");
      assertThat(outbox.count("processed_at is null")).isZero();
    }
  }

  /** The one value {@code sql} reads, {@code ${control}} being the control schema. */
  private String controlValue(String sql) {
    return org.jooq
        .impl
        .DSL
        .using(db.dataSource(), org.jooq.SQLDialect.POSTGRES)
        .fetchSingle(sql.replace("${control}", control))
        .get(0, String.class);
  }

  private int metricsPort() {
    synchronized (log) {
      return MetricsEndpoint.port(
          String.join(" ", log.list.stream().map(ILoggingEvent::getFormattedMessage).toList()));
    }
  }
}
