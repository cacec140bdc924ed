package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.wal.WalSlot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * {@code relay --source wal} and {@code wal-slot} in-process against outbox-testing's {@link
 * LogicalServer} (an embedded PostgreSQL with {@code wal_level=logical}), publishing to the local
 * RabbitMQ.
 */
class WalCommandsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/x";

  private LogicalDatabase db;
  private RabbitQueue rabbit;
  private ListAppender<ILoggingEvent> relayLog;
  private ListAppender<ILoggingEvent> walLog;

  @BeforeEach
  void setUp() throws Exception {
    db = LogicalDatabase.freshOutbox();
    rabbit = new RabbitQueue();
    relayLog = new ListAppender<>();
    relayLog.start();
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).addAppender(relayLog);
    ((Logger) LoggerFactory.getLogger(MetricsServer.class)).addAppender(relayLog);
    walLog = new ListAppender<>();
    walLog.start();
    ((Logger) LoggerFactory.getLogger("dev.txoutbox.wal")).addAppender(walLog);
  }

  @AfterEach
  void tearDown() throws Exception {
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).detachAppender(relayLog);
    ((Logger) LoggerFactory.getLogger(MetricsServer.class)).detachAppender(relayLog);
    ((Logger) LoggerFactory.getLogger("dev.txoutbox.wal")).detachAppender(walLog);
    rabbit.close();
  }

  @Test
  void relayFromTheSlotPublishesEveryEventWithTheSweeperBesideItAndStopsWithExitZero()
      throws Exception {
    String slot = WalSlot.defaultName(dev.txoutbox.schema.OutboxTables.of(db.schema, ""));
    List<UUID> before = db.write(5); // before the slot exists: published as the slot is created
    CliRunner cli = new CliRunner().withArgs(db.options());
    CompletableFuture<CliRunner.Result> run =
        startRelay(
            cli,
            "--source",
            "wal",
            // The sweeper polls every 10 minutes: after its first cycle, only the slot publishes.
            "--sweep-interval",
            "10m",
            "--min-batch-interval",
            "2ms",
            "--concurrent-batches",
            "2",
            "--metrics-port",
            "0",
            "--metrics-refresh",
            "200ms");
    awaitActive(slot);
    await().atMost(WAIT).until(() -> rabbit.receivedCount() == before.size());
    List<UUID> all = new ArrayList<>(before);
    // Two rounds: the first may meet the sweeper's first cycle; the second only the slot can.
    String lastWrite = null;
    for (int round = 1; round <= 2; round++) {
      all.addAll(db.write(9));
      lastWrite = db.writeReturningLsn(1, all);
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == all.size());
    }
    assertThat(rabbit.received())
        .containsExactlyInAnyOrderElementsOf(all.stream().map(UUID::toString).toList());
    await().atMost(WAIT).until(() -> db.count("processed_at is null") == 0);

    int port = MetricsEndpoint.port(String.join(" ", messages()));
    assertThat(port).isPositive();
    await().atMost(WAIT).until(() -> MetricsEndpoint.get(port, "/health").statusCode() == 200);
    assertThat(MetricsEndpoint.get(port, "/metrics").body())
        .contains("outbox_events_pending{relay=\"default-sweeper\"}")
        // The WAL relay's own meters, and the outbox meters under its name.
        .contains("outbox_wal_slot_lag_bytes{relay=\"default\"}")
        .contains("outbox_wal_slot_lag_seconds{relay=\"default\"}")
        .contains("outbox_events_published_total{relay=\"default\"}");

    cli.stop.countDown();
    CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(result.out()).isEmpty();
    List<String> starting = messages().stream().filter(m -> m.contains("starting")).toList();
    assertThat(starting)
        .singleElement()
        .asString()
        .contains("source wal: slot " + slot + ", publication " + slot)
        .contains("creating them if missing")
        .contains("min batch interval 2ms, concurrent batches 2, max attempts 10, completion mark")
        .contains("backoff 1s to 5m, shutdown timeout 30s; sweeper 'default-sweeper' every 10m")
        .contains("pool size 5")
        .doesNotContain("workers");
    // The flags reached the WAL relay itself, not only the CLI's line.
    assertThat(walLog.list.stream().map(ILoggingEvent::getFormattedMessage))
        .filteredOn(m -> m.startsWith("starting WAL relay"))
        .singleElement()
        .asString()
        .contains("minBatchInterval=2ms, concurrentBatches=2");
    // Stopped: nothing reads the slot any more, and it confirmed what it published, up to the last
    // transaction (a position inside it, before its commit).
    WalSlot after = WalSlot.find(LogicalDatabase.dataSource(), slot).orElseThrow();
    assertThat(after.active()).isFalse();
    assertThat(LogicalDatabase.lsn(after.confirmedFlushLsn().orElseThrow()))
        .as("confirmed %s, last transaction at %s", after.confirmedFlushLsn(), lastWrite)
        .isGreaterThanOrEqualTo(LogicalDatabase.lsn(lastWrite));
  }

  @Test
  void orderingPerAggregateAppliesToTheWalRelayAndItsSweeper() throws Exception {
    ListAppender<ILoggingEvent> relays = new ListAppender<>();
    relays.start();
    List<Logger> loggers =
        List.of(
            (Logger) LoggerFactory.getLogger("dev.txoutbox.wal"),
            (Logger) LoggerFactory.getLogger("dev.txoutbox.relay"));
    loggers.forEach(l -> l.addAppender(relays));
    try {
      String slot = WalSlot.defaultName(dev.txoutbox.schema.OutboxTables.of(db.schema, ""));
      CliRunner cli = new CliRunner().withArgs(db.options());
      // The sweeper's per-aggregate claim needs the ordering indexes, as with --source poll.
      CliRunner.Result migrated = cli.run("migrate", "--with-ordering-index");
      assertThat(migrated.exitCode()).as(migrated.err()).isZero();
      CompletableFuture<CliRunner.Result> run =
          startRelay(
              cli, "--source", "wal", "--ordering", "per-aggregate", "--sweep-interval", "1s");
      awaitActive(slot);
      List<UUID> ids = db.write(10);
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == ids.size());
      // The sweeper starts one sweep interval after the stream opened.
      await()
          .atMost(WAIT)
          .until(
              () ->
                  List.copyOf(relays.list).stream()
                      .anyMatch(
                          e ->
                              e.getFormattedMessage()
                                  .startsWith("outbox relay default-sweeper starting")));
      cli.stop.countDown();
      CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);

      assertThat(result.exitCode()).as(result.err()).isZero();
      assertThat(rabbit.received())
          .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
      assertThat(messages())
          .filteredOn(m -> m.contains("starting"))
          .singleElement()
          .asString()
          .contains("source wal: slot " + slot)
          .contains("ordering per-aggregate");
      List<String> started = relays.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      assertThat(started)
          .anyMatch(
              m ->
                  m.startsWith("starting WAL relay default:")
                      && m.contains("ordering=PER_AGGREGATE,"))
          .anyMatch(
              m ->
                  m.startsWith("outbox relay default-sweeper starting")
                      && m.contains("ordering=PER_AGGREGATE,"));
    } finally {
      loggers.forEach(l -> l.detachAppender(relays));
    }
  }

  @Test
  void aLostSlotShowsLostNotUnlimited() throws Exception {
    // A server of the test's own: its WAL limit would invalidate every slot of the shared one.
    try (LogicalServer own = LogicalServer.embedded(Map.of("max_slot_wal_keep_size", "1MB"))) {
      // Catalog functions and DDL with no generated model: plain SQL. WAL past the limit, in new
      // segments, then a checkpoint that removes what the slot needed.
      DSLContext dsl = DSL.using(own.dataSource(), SQLDialect.POSTGRES);
      dsl.execute("SELECT pg_create_logical_replication_slot('lost_slot', 'pgoutput')");
      dsl.execute("CREATE TABLE filler (x text)");
      for (int i = 0; i < 4; i++) {
        dsl.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 2000)");
        dsl.execute("SELECT pg_switch_wal()");
      }
      dsl.execute("CHECKPOINT");

      CliRunner.Result text =
          new CliRunner()
              .run(
                  "--jdbc-url",
                  own.jdbcUrl(),
                  "--user",
                  "postgres",
                  "wal-slot",
                  "show",
                  "--slot",
                  "lost_slot");

      assertThat(text.exitCode()).as(text.err()).isZero();
      assertThat(text.out().lines())
          .contains("wal status:          lost", "safe wal size:       - (lost)");
    }
  }

  @Test
  void noCreateSlotRefusesAMissingSlotWithTheSqlToRun() {
    CliRunner.Result r =
        new CliRunner()
            .withArgs(db.options())
            .run(relayArgs("--source", "wal", "--no-create-slot", "--slot", "absent_slot"));

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.errLines().get(0))
        .startsWith("txoutbox: the WAL relay cannot start: publication")
        .contains("does not exist and creating it is off: run CREATE PUBLICATION");
    assertThat(WalSlot.find(LogicalDatabase.dataSource(), "absent_slot")).isEmpty();
  }

  @Test
  void aSlotOfTheSameNameInAnotherDatabaseIsRefusedAtStartNamingTheFlag() {
    String slot = WalSlot.defaultName(dev.txoutbox.schema.OutboxTables.of(db.schema, ""));
    String database = "other_" + db.schema;
    // DDL and a catalog function: no generated model, plain SQL.
    DSLContext postgres = DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES);
    postgres.execute("CREATE DATABASE " + database);
    try {
      DSLContext other =
          DSL.using(LogicalDatabase.server().dataSource(database), SQLDialect.POSTGRES);
      other.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      try {
        CliRunner.Result r =
            new CliRunner().withArgs(db.options()).run(relayArgs("--source", "wal"));

        assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
        assertThat(r.errLines().get(0))
            .startsWith(
                "txoutbox: the WAL relay cannot start: replication slot "
                    + slot
                    + " belongs to database "
                    + database
                    + ", not postgres")
            .endsWith("Give this relay a slot of its own: set --slot (and --publication)");
      } finally {
        other.execute("SELECT pg_drop_replication_slot('" + slot + "')");
      }
    } finally {
      postgres.execute("DROP DATABASE " + database);
    }
  }

  @Test
  void showsTheSlotAsTextAndJsonThenDropRefusesWithoutYesAndDrops() throws Exception {
    CliRunner cli = new CliRunner().withArgs(db.options());
    String slot = "show_" + db.schema;
    CliRunner.Result missing = cli.run("wal-slot", "show", "--slot", slot);
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(missing.err())
        .isEqualTo(
            "txoutbox: replication slot "
                + slot
                + " does not exist ('relay --source wal' creates it at start)"
                + System.lineSeparator());
    assertThat(missing.out()).isEmpty();

    // A relay creates the slot and publication, then stops.
    CompletableFuture<CliRunner.Result> run = startRelay(cli, "--source", "wal", "--slot", slot);
    awaitActive(slot);
    // --force never drops a slot a relay reads.
    CliRunner.Result active = cli.run("wal-slot", "drop", "--slot", slot, "--force", "--yes");
    assertThat(active.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(active.err())
        .startsWith("txoutbox: replication slot " + slot + " is active: process ")
        .contains("Stop that relay first");
    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
    await()
        .atMost(WAIT)
        .until(() -> !WalSlot.find(LogicalDatabase.dataSource(), slot).orElseThrow().active());
    db.write(3);

    String publication = WalSlot.defaultName(dev.txoutbox.schema.OutboxTables.of(db.schema, ""));
    CliRunner.Result text = cli.run("wal-slot", "show", "--slot", slot);
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out().lines())
        .contains(
            "slot:                " + slot,
            "slot type:           logical",
            "plugin:              pgoutput",
            "database:            postgres",
            "active:              no",
            "wal status:          reserved",
            "safe wal size:       - (unlimited)",
            "publication:         " + publication + ": insert of " + db.schema + ".outbox_events",
            "skipped:             none")
        .anyMatch(l -> l.matches("lag: +[1-9][0-9]* bytes"))
        .anyMatch(l -> l.matches("confirmed flush lsn: [0-9A-F]+/[0-9A-F]+"));

    CliRunner.Result json = cli.run("wal-slot", "show", "--slot", slot, "--json");
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode o = JsonMapper.builder().build().readTree(json.out());
    assertThat(o.fieldNames())
        .toIterable()
        .containsExactly(
            "slot",
            "slot_type",
            "plugin",
            "database",
            "active",
            "active_pid",
            "confirmed_flush_lsn",
            "restart_lsn",
            "wal_status",
            "safe_wal_size",
            "lag_bytes",
            "retained_wal_bytes",
            "publication",
            "skipped_transactions");
    assertThat(o.get("slot").asText()).isEqualTo(slot);
    assertThat(o.get("active").asBoolean()).isFalse();
    assertThat(o.get("active_pid").isNull()).isTrue();
    assertThat(o.get("lag_bytes").asLong()).isPositive();
    assertThat(o.get("publication").get("tables").get(0).asText())
        .isEqualTo(db.schema + ".outbox_events");
    assertThat(o.get("publication").get("publishes").toString()).isEqualTo("[\"insert\"]");

    // The slot is named apart from its publication: drop refuses it unless told the publication.
    CliRunner.Result unknown = cli.run("wal-slot", "drop", "--slot", slot, "--yes");
    assertThat(unknown.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(unknown.err())
        .startsWith(
            "txoutbox: replication slot "
                + slot
                + " has no relay publication: publication "
                + slot
                + " does not exist");
    String[] drop = {"wal-slot", "drop", "--slot", slot, "--publication", publication};
    CliRunner.Result refused = cli.run(drop);
    assertThat(refused.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(refused.err())
        .startsWith("txoutbox: refusing to drop replication slot " + slot + " (retaining ")
        .contains(" bytes of WAL since restart lsn ")
        .endsWith(") without --yes; nothing dropped" + System.lineSeparator());
    assertThat(WalSlot.find(LogicalDatabase.dataSource(), slot)).isPresent();

    CliRunner.Result dropped = cli.run(with(drop, "--yes"));
    assertThat(dropped.exitCode()).as(dropped.err()).isZero();
    assertThat(dropped.out()).startsWith("dropped replication slot " + slot + " (retaining ");
    assertThat(WalSlot.find(LogicalDatabase.dataSource(), slot)).isEmpty();
    assertThat(cli.run(with(drop, "--yes")).exitCode()).isEqualTo(ExitCodes.FAILURE);
  }

  @Test
  void showListsTheTransactionsTheRelayMovedTheSlotPast() throws Exception {
    CliRunner cli = new CliRunner().withArgs(db.options());
    String slot = "skips_" + db.schema;
    // A catalog function and the relay's record of a move, as WalRelay writes it after the server
    // failed three times to decode a transaction (WalRelayUndecodableTest makes a real one).
    DSLContext dsl = DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES);
    dsl.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    try {
      dsl.execute(
          "CREATE TABLE "
              + db.schema
              + ".outbox_wal_skips (slot_name text NOT NULL, xid bigint NOT NULL, commit_lsn text"
              + " NOT NULL, from_lsn text NOT NULL, to_lsn text NOT NULL, error text NOT NULL,"
              + " skipped_at timestamptz NOT NULL)");
      dsl.execute(
          "INSERT INTO "
              + db.schema
              + ".outbox_wal_skips VALUES (?, 741, '0/1737F28', '0/1737060', '0/1737F29',"
              + " 'ERROR: out of memory\n  Detail: Cannot enlarge string buffer',"
              + " '2026-12-06T12:30:22Z'), ('another_slot', 1, '0/1', '0/0', '0/2', 'x', now())",
          slot);

      CliRunner.Result text = cli.run("wal-slot", "show", "--slot", slot);
      assertThat(text.exitCode()).as(text.err()).isZero();
      assertThat(text.out().lines())
          .contains("skipped:             1 transaction(s)")
          .anyMatch(
              l ->
                  l.startsWith(
                          "  skipped:           xid 741, commit at 0/1737F28, moved 0/1737060 to"
                              + " 0/1737F29 at 2026-12-06T")
                      // One line: the server's multi-line error escaped.
                      && l.endsWith(
                          ": ERROR: out of memory\\n  Detail: Cannot enlarge string buffer"));

      CliRunner.Result json = cli.run("wal-slot", "show", "--slot", slot, "--json");
      assertThat(json.exitCode()).as(json.err()).isZero();
      JsonNode skipped =
          JsonMapper.builder().build().readTree(json.out()).get("skipped_transactions");
      assertThat(skipped).hasSize(1);
      assertThat(skipped.get(0).get("xid").asLong()).isEqualTo(741);
      assertThat(skipped.get(0).get("commit_lsn").asText()).isEqualTo("0/1737F28");
      assertThat(skipped.get(0).get("to_lsn").asText()).isEqualTo("0/1737F29");
      assertThat(skipped.get(0).get("error").asText()).startsWith("ERROR: out of memory\n");
    } finally {
      dsl.execute("SELECT pg_drop_replication_slot('" + slot + "')");
    }
  }

  @Test
  void dropRefusesASlotThatIsNotTheRelaysAndForceDropsOnlyAPgoutputOne() {
    CliRunner cli = new CliRunner().withArgs(db.options());
    String foreign = "foreign_" + db.schema;
    String physical = "physical_" + db.schema;
    // Catalog functions with no generated model: plain SQL. A pgoutput slot as another reader's
    // (Debezium, a subscriber) would be, without a publication of its name; and a standby's.
    DSLContext dsl = DSL.using(LogicalDatabase.dataSource(), SQLDialect.POSTGRES);
    dsl.execute("SELECT pg_create_logical_replication_slot('" + foreign + "', 'pgoutput')");
    dsl.execute("SELECT pg_create_physical_replication_slot('" + physical + "')");

    CliRunner.Result refused = cli.run("wal-slot", "drop", "--slot", foreign, "--yes");
    assertThat(refused.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(refused.err())
        .isEqualTo(
            "txoutbox: replication slot "
                + foreign
                + " has no relay publication: publication "
                + foreign
                + " does not exist, so the slot may be another reader's (a Debezium connector, a"
                + " subscriber). Name the relay's with --publication, or drop the slot anyway with"
                + " --force; nothing dropped"
                + System.lineSeparator());
    assertThat(WalSlot.find(LogicalDatabase.dataSource(), foreign)).isPresent();

    CliRunner.Result forcedPhysical =
        cli.run("wal-slot", "drop", "--slot", physical, "--force", "--yes");
    assertThat(forcedPhysical.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(forcedPhysical.err())
        .startsWith("txoutbox: replication slot " + physical + " is a physical slot");
    assertThat(WalSlot.find(LogicalDatabase.dataSource(), physical)).isPresent();
    dsl.execute("SELECT pg_drop_replication_slot('" + physical + "')");

    CliRunner.Result forced = cli.run("wal-slot", "drop", "--slot", foreign, "--force", "--yes");
    assertThat(forced.exitCode()).as(forced.err()).isZero();
    assertThat(WalSlot.find(LogicalDatabase.dataSource(), foreign)).isEmpty();
  }

  private static String[] with(String[] args, String... more) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--slot s | --slot applies to --source wal only but --source is poll",
        "--no-create-slot | --no-create-slot applies to --source wal only but --source is poll",
        "--sweep-interval 5s | --sweep-interval applies to --source wal only",
        "--min-batch-interval 2ms | --min-batch-interval applies to --source wal only",
        "--concurrent-batches 2 | --concurrent-batches applies to --source wal only",
        "--replication-url " + UNREACHABLE + " | --replication-url applies to --source wal only",
        "--source river | --source must be one of poll, wal but was 'river'",
        "--source wal --workers 2 | --workers does not apply to --source wal: it reads the slot",
        "--source wal --max-poll-interval 5s | --max-poll-interval does not apply to --source wal",
        "--source wal --min-poll-interval 5s | --min-poll-interval does not apply to --source wal",
        "--source wal --listen | --listen does not apply to --source wal",
        "--source wal --sweep-interval 0s | --sweep-interval must be positive but was 0ms",
        "--source wal --min-batch-interval PT-1S | Invalid value for option '--min-batch-interval':"
            + " must not be negative but was 'PT-1S'",
        "--source wal --min-batch-interval 2s | --min-batch-interval must be at most 1s but was 2s",
        "--source wal --concurrent-batches 9 | --concurrent-batches must be between 1 and 8 but was"
            + " 9",
        "--source wal --concurrent-batches 0 | --concurrent-batches must be between 1 and 8 but was"
            + " 0",
        "--source wal --concurrent-batches 2 --ordering per-aggregate | --concurrent-batches must"
            + " be 1 with --ordering per-aggregate but was 2",
        "--source wal --concurrent-batches 2 --pool-size 2 | --pool-size must be between 3 (the"
            + " WAL relay's 2 batches and its sweeper)",
        "--source wal --slot Bad-Name | --slot must be 1 to 63 characters of a-z, 0-9 and _ but",
        "--source wal --publication x;drop | --publication must be 1 to 63 characters",
        "--source wal --replication-url http://db/x | --replication-url must be a JDBC URL"
            + " starting with jdbc:postgresql: but was 'http://db/x'",
        "--source wal --pool-size 1 | --pool-size must be between 2 (the WAL relay and its sweeper)"
      })
  void flagsThatDoNotApplyToTheSourceAreRefusedNamingTheFlag(String flags, String message)
      throws Exception {
    List<String> args = new ArrayList<>(List.of(relayArgs()));
    args.addAll(List.of(flags.trim().split(" ")));
    // A flag accepted by mistake would leave the relay waiting for the database: it is then
    // stopped, and exits 0.
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", UNREACHABLE)
            .runUntilWaitingForTheDatabase(args.toArray(String[]::new));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).startsWith(message.trim());
    assertThat(r.out()).isEmpty();
    assertThat(messages()).noneMatch(m -> m.contains("starting"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "show --slot Bad | --slot must be 1 to 63 characters",
        "show --publication a-b | --publication must be 1 to 63 characters",
        "drop | Missing required option: '--slot=NAME'",
        "drop --slot x'y --yes | --slot must be 1 to 63 characters",
        " | a command must be given (show or drop) but was not"
      })
  void badWalSlotArgumentsExitTwo(String flags, String message) {
    List<String> args = new ArrayList<>(List.of("wal-slot"));
    if (flags != null) {
      args.addAll(List.of(flags.trim().split(" ")));
    }
    CliRunner.Result r =
        new CliRunner().env("OUTBOX_JDBC_URL", UNREACHABLE).run(args.toArray(String[]::new));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).startsWith(message.trim());
  }

  @Test
  void thePasswordOfTheReplicationUrlIsMaskedInTheStartLineErrorsAndLogs() throws Exception {
    String secret = "R3plS3cretPw";
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", UNREACHABLE)
            .runUntilWaitingForTheDatabase(
                relayArgs(
                    "--source",
                    "wal",
                    "--replication-url",
                    "jdbc:postgresql://replica.example:5432/app?user=relay&password=" + secret));

    // The database cannot be reached: the relay waited for it until stopped.
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
    assertThat(r.err()).doesNotContain(secret);
    assertThat(r.relayLogLines(CliRunner.WAITING_FOR_THE_DATABASE))
        .singleElement()
        .asString()
        .contains("cannot reach the database at " + UNREACHABLE)
        .doesNotContain(secret);
    assertThat(r.relayLog()).noneMatch(m -> m.contains(secret));
    List<String> starting = messages().stream().filter(m -> m.contains("starting")).toList();
    assertThat(starting)
        .singleElement()
        .asString()
        .contains(
            "replication url jdbc:postgresql://replica.example:5432/app?user=relay&password=****")
        .doesNotContain(secret);
    // Once read, the secret is hidden wherever it appears, even outside a URL.
    assertThat(OutputMasking.line("the server said: " + secret + " is wrong"))
        .isEqualTo("the server said: **** is wrong");
  }

  private String[] relayArgs(String... options) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "relay",
                "--publisher",
                "rabbit",
                "--amqp-uri",
                RabbitQueue.URI,
                "--exchange",
                rabbit.exchange));
    args.addAll(List.of(options));
    return args.toArray(String[]::new);
  }

  private CompletableFuture<CliRunner.Result> startRelay(CliRunner cli, String... options) {
    String[] args = relayArgs(options);
    return CompletableFuture.supplyAsync(() -> cli.run(args));
  }

  /** Until a replication connection reads {@code slot}: the relay has started streaming. */
  private static void awaitActive(String slot) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                WalSlot.find(LogicalDatabase.dataSource(), slot)
                    .map(WalSlot::active)
                    .orElse(false));
  }

  private List<String> messages() {
    return relayLog.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }
}
