package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one-shot commands against the real database, each test on a schema of its own. */
class AdminCommandsTest {

  private TestDatabase db;
  private OutboxFixture outbox;
  private CliRunner cli;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("cli");
    outbox = new OutboxFixture(db);
    cli = CliRunner.forDatabase(db);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void statusJsonHasEveryNumberAndExitsZeroWithoutDeadLetters() {
    outbox.pending("order.created", 3);

    CliRunner.Result r = cli.run("status", "--json");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out().trim())
        .startsWith("{\"schema\":\"" + db.schema() + "\",\"pending\":3,\"due_now\":3,")
        .contains("\"dead_letters\":0,\"oldest_pending_age_seconds\":")
        .contains(",\"processed_last_minute\":0,\"events_table\":{\"size_bytes\":")
        .endsWith("}}");
    assertThat(r.out().lines()).hasSize(1);
  }

  @Test
  void statusExitsThreeWhenDeadLettersExist() {
    outbox.deadLetters("order.rejected", 2);
    outbox.pending("order.created", 4);
    outbox.processAll();
    outbox.pending("order.created", 1);

    CliRunner.Result json = cli.run("status", "--json");
    CliRunner.Result text = cli.run("status");

    assertThat(json.exitCode()).isEqualTo(ExitCodes.DEAD_LETTERS);
    assertThat(json.out())
        .contains("\"pending\":1,\"due_now\":1,\"dead_letters\":2,")
        .contains("\"processed_last_minute\":4,\"events_table\":{");
    assertThat(text.exitCode()).isEqualTo(ExitCodes.DEAD_LETTERS);
    assertThat(text.out())
        .contains("dead letters:          2")
        .contains("pending:               1");
  }

  @Test
  void statusWithNothingPendingShowsNoAge() {
    CliRunner.Result r = cli.run("status", "--json");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("\"oldest_pending_age_seconds\":null");
  }

  @Test
  void requeueByIdCountsOnlyDeadLettersAmongTheIds() {
    List<UUID> dead = outbox.deadLetters("order.rejected", 3);
    UUID unknown = UUID.randomUUID();

    CliRunner.Result r =
        cli.run(
            "dead-letters",
            "requeue",
            "--id",
            dead.get(0) + "," + dead.get(1),
            "--id",
            unknown.toString());

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("requeued 2 ");
    assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(1);
    assertThat(outbox.count("dead_lettered_at is null and processed_at is null and attempts = 0"))
        .isEqualTo(2);
  }

  @Test
  void requeueByEventTypeAndAll() {
    outbox.deadLetters("order.rejected", 3);
    outbox.deadLetters("invoice.rejected", 2);

    CliRunner.Result byType =
        cli.run("dead-letters", "requeue", "--event-type", "invoice.rejected");
    assertThat(byType.exitCode()).isZero();
    assertThat(byType.out()).startsWith("requeued 2 (dead letters of type invoice.rejected)");

    CliRunner.Result all = cli.run("dead-letters", "requeue", "--all");
    assertThat(all.exitCode()).isZero();
    assertThat(all.out()).startsWith("requeued 3 (all dead letters)");
    assertThat(outbox.count("dead_lettered_at is not null")).isZero();
  }

  @Test
  void requeueDryRunCountsAndChangesNothing() {
    outbox.deadLetters("order.rejected", 4);

    CliRunner.Result r = cli.run("dead-letters", "requeue", "--all", "--dry-run");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("would requeue 4 ");
    assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(4);
  }

  @Test
  void purgeWithoutYesRefusesWithExitTwoAndKeepsTheRows() {
    outbox.deadLetters("order.rejected", 3);

    CliRunner.Result r = cli.run("dead-letters", "purge", "--all");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("refusing to purge 3 ").contains("--yes");
    assertThat(r.out()).isEmpty();
    assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(3);
  }

  @Test
  void purgeWithYesDeletesTheSelectedDeadLetters() {
    outbox.deadLetters("order.rejected", 3);
    outbox.deadLetters("invoice.rejected", 1);

    CliRunner.Result r =
        cli.run("dead-letters", "purge", "--event-type", "order.rejected", "--yes");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("purged 3 ");
    assertThat(outbox.count("true")).isEqualTo(1);
  }

  @Test
  void listShowsTheNewestDeadLettersAsTableOrJson() {
    List<UUID> ids = outbox.deadLetters("order.rejected", 3);

    CliRunner.Result table = cli.run("dead-letters", "list", "--limit", "2");
    CliRunner.Result json =
        cli.run("dead-letters", "list", "--json", "--event-type", "order.rejected");
    CliRunner.Result none = cli.run("dead-letters", "list", "--event-type", "other");

    assertThat(table.exitCode()).isZero();
    assertThat(table.out().lines()).hasSize(3).first().asString().startsWith("ID");
    assertThat(table.out()).contains("order.rejected").contains("too large");
    assertThat(json.exitCode()).isZero();
    assertThat(json.out().trim()).startsWith("[{\"id\":").endsWith("}]");
    assertThat(json.out()).contains("\"payload\":{\"n\":").contains("\"attempts\":1");
    for (UUID id : ids) {
      assertThat(json.out()).contains(id.toString());
    }
    assertThat(none.out().trim()).isEqualTo("no dead letters");
  }

  @Test
  void listShowsADeadLetterWithUnreadableHeadersWithTheStoredText() {
    outbox.deadLetters("order.rejected", 1);
    UUID unreadable = UUID.randomUUID();
    outbox.execute(
        "insert into ${schema}.outbox_events (id, aggregate_type, aggregate_id, event_type,"
            + " payload, headers, dead_lettered_at, last_error) values ('"
            + unreadable
            + "', 'order', 'o-x', 'order.poison', '{}', '[1, \"a\"]', now(),"
            + " 'unreadable row: headers must be a JSON object of strings')");

    CliRunner.Result table = cli.run("dead-letters", "list");
    CliRunner.Result json = cli.run("dead-letters", "list", "--json");

    assertThat(table.exitCode()).as(table.err()).isZero();
    assertThat(table.out().lines()).hasSize(3);
    assertThat(table.out()).contains(unreadable.toString()).contains("unreadable row: headers");
    assertThat(json.exitCode()).as(json.err()).isZero();
    assertThat(json.out())
        .contains("\"headers\":{},\"raw_headers\":\"[1, \\\"a\\\"]\",\"payload\":{}")
        .contains("\"raw_headers\":null");
  }

  @Test
  void groupsCountByEventTypeAndFingerprint() {
    outbox.deadLetters("order.rejected", 3);

    CliRunner.Result table = cli.run("dead-letters", "groups");
    CliRunner.Result json = cli.run("dead-letters", "groups", "--json");

    assertThat(table.exitCode()).isZero();
    assertThat(table.out().lines()).hasSize(2);
    assertThat(table.out().lines().skip(1).findFirst().orElseThrow()).startsWith("3 ");
    assertThat(json.out()).contains("\"event_type\":\"order.rejected\"").contains("\"count\":3");
  }

  @Test
  void cleanupDeletesOnlyOldProcessedRows() {
    outbox.pending("order.created", 7);
    outbox.processAll();
    outbox.execute(
        "update ${schema}.outbox_events set processed_at = now() - interval '8 days'"
            + " where id in (select id from ${schema}.outbox_events limit 5)");
    outbox.pending("order.created", 2);

    CliRunner.Result r = cli.run("cleanup", "--older-than", "7d", "--chunk", "2");

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).startsWith("deleted 5 processed events older than 7d");
    assertThat(r.err()).contains("deleted so far");
    assertThat(outbox.count("processed_at is not null")).isEqualTo(2);
    assertThat(outbox.count("processed_at is null")).isEqualTo(2);
  }

  @Test
  void migrateCreatesTheTablesAndTheNotifyTriggerInANewSchema() {
    String schema = db.schema() + "_m";
    try {
      CliRunner other =
          new CliRunner().withArgs("--jdbc-url", TestDatabase.jdbcUrl(), "--user", "postgres");
      CliRunner.Result first =
          other.run(
              "migrate", "--with-notify-trigger", "--with-ordering-index", "--schema", schema);
      CliRunner.Result again = other.run("--schema", schema, "migrate");

      assertThat(first.exitCode()).isZero();
      assertThat(first.out())
          .contains("3 migrations applied")
          .contains("NOTIFY trigger installed")
          .contains("ordering index installed");
      assertThat(again.exitCode()).isZero();
      assertThat(again.out()).contains("0 migrations applied");
      assertThat(other.run("--schema", schema, "status").exitCode()).isZero();
    } finally {
      db.execute("drop schema if exists " + schema + " cascade");
    }
  }

  @Test
  void statusOnASchemaWithoutTablesSaysToMigrate() {
    CliRunner.Result r =
        new CliRunner()
            .run(
                "status",
                "--jdbc-url",
                TestDatabase.jdbcUrl(),
                "--user",
                "postgres",
                "--schema",
                "no_such_schema_here");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .contains("no outbox tables in schema 'no_such_schema_here'")
        .contains("migrate");
  }

  @Test
  void theEnvironmentAndAPasswordFileStandInForOptions(@TempDir Path dir) throws Exception {
    outbox.pending("order.created", 1);
    Path password = Files.writeString(dir.resolve("pw"), "not-checked-by-trust-auth\n");

    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl())
            .env("OUTBOX_DB_USER", "postgres")
            .run(
                "status",
                "--json",
                "--schema",
                db.schema(),
                "--password-file",
                password.toString());

    assertThat(r.exitCode()).isZero();
    assertThat(r.out()).contains("\"pending\":1");
  }
}
