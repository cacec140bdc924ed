package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A command pointed at a schema without an outbox, in a database of its own whose outboxes are in
 * schema billing and in schema shop with table prefix x_: the error names the flags that reach them
 * instead of only suggesting a migrate that would create a second, empty outbox.
 */
class MissingOutboxTest {

  private static final String SERVER =
      TestDatabase.jdbcUrl().substring(0, TestDatabase.jdbcUrl().lastIndexOf('/') + 1);

  private static String database;

  @BeforeAll
  static void createDatabaseWithTwoOutboxes() throws SQLException {
    database = "cli_elsewhere_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    admin("CREATE DATABASE " + database);
    assertThat(cli().run("--schema", "billing", "migrate").exitCode()).isZero();
    assertThat(cli().run("--schema", "shop", "--table-prefix", "x_", "migrate").exitCode())
        .isZero();
  }

  @AfterAll
  static void dropDatabase() throws SQLException {
    admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
  }

  private static CliRunner cli() {
    return new CliRunner().withArgs("--jdbc-url", SERVER + database, "--user", "postgres");
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(SERVER + "postgres", "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  @Test
  void withoutSchemaTheErrorNamesTheSchemasThatHoldAnOutbox() {
    CliRunner.Result r = cli().run("status");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err())
        .startsWith("txoutbox: no outbox tables in schema 'public' (")
        .contains(
            "; the database has outboxes elsewhere: give --schema billing, or --schema shop"
                + " --table-prefix x_ (or run 'txoutbox migrate' to create a new, empty one here)");
  }

  @Test
  void aWrongTablePrefixIsCorrectedToo() {
    CliRunner.Result r = cli().run("--schema", "billing", "--table-prefix", "x_", "status");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.err())
        .contains(
            "give --schema billing without --table-prefix, or --schema shop --table-prefix x_");
  }

  @Test
  void theRelayNamesThemAsWell() {
    CliRunner.Result r = cli().run("relay", "--publisher", "fake");

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.err()).contains("give --schema billing, or --schema shop --table-prefix x_");
  }

  @Test
  void theOutboxAskedForIsNotOfferedAsItsOwnFix() {
    CliRunner.Result r = cli().run("--schema", "shop", "dead-letters", "list");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.err())
        .contains("no outbox tables in schema 'shop'")
        .contains("give --schema billing, or --schema shop --table-prefix x_");
  }
}
