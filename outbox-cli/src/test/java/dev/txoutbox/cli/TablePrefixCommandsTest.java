package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code --table-prefix} on every command that touches the database. */
class TablePrefixCommandsTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private TestDatabase db;
  private CliRunner cli;
  private OutboxTables tables;

  @BeforeEach
  void setUp() {
    db = TestDatabase.createEmpty("cli_prefix", 4);
    cli = CliRunner.forDatabase(db).withArgs("--table-prefix", "bill_");
    tables = OutboxTables.of(db.schema(), "bill_");
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private void write(int events) {
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .transaction(
            tx -> {
              for (int i = 0; i < events; i++) {
                outbox.record(tx.dsl(), "order", "o-" + i, "order.created", "{}");
              }
            });
  }

  /** Rows of the prefixed table matching {@code where}; a catalog-free count by name. */
  private int count(String where) {
    DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    return dsl.fetchCount(
        DSL.table(DSL.name(db.schema(), tables.eventsTable())), DSL.condition(where));
  }

  @Test
  void migrateCreatesThePrefixedTablesTriggerAndIndexes() {
    CliRunner.Result r = cli.run("migrate", "--with-notify-trigger", "--with-ordering-index");

    assertThat(r.exitCode()).as(r.err()).isZero();
    String outbox = "schema " + db.schema() + ", table prefix bill_";
    assertThat(r.out().lines())
        .containsExactly(
            outbox + ": 3 migrations applied",
            outbox + ": NOTIFY trigger installed (channel txoutbox_bill_" + db.schema() + ")",
            outbox + ": ordering index installed");
    assertThat(
            DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                .resultQuery("select to_regclass(?)::text", db.schema() + ".bill_outbox_events")
                .fetchSingle(0, String.class))
        .isEqualTo(db.schema() + ".bill_outbox_events");
  }

  @Test
  void statusAndCleanupWorkOnThePrefixedTablesOnly() {
    assertThat(cli.run("migrate").exitCode()).isZero();
    write(2);

    CliRunner.Result status = cli.run("status", "--json");
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out()).contains("\"pending\":2,").contains("\"table_prefix\":\"bill_\"");
    assertThat(cli.run("status").out()).contains("table prefix:          bill_");

    // Without the prefix the CLI looks for the unprefixed tables, and says so.
    CliRunner.Result unprefixed = CliRunner.forDatabase(db).run("status");
    assertThat(unprefixed.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(unprefixed.err()).contains("no outbox tables in schema '" + db.schema() + "' (");
  }

  @Test
  void theRelayDrainsThePrefixedTable() throws Exception {
    assertThat(cli.run("migrate").exitCode()).isZero();
    write(5);
    CompletableFuture<CliRunner.Result> run =
        CompletableFuture.supplyAsync(() -> cli.run("relay", "--publisher", "fake"));
    await().atMost(WAIT).until(() -> count("processed_at is not null") == 5);
    cli.stop.countDown();
    CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.err()).isZero();
  }

  @Test
  void anInvalidPrefixIsRefusedNamingTheFlag() {
    CliRunner.Result r = CliRunner.forDatabase(db).run("--table-prefix", "Bill", "status");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--table-prefix must be empty or a lower-case identifier start");
  }
}
