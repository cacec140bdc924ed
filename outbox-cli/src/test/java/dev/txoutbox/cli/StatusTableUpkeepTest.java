package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@code status} tells how the events table is kept: size, dead tuples, last vacuum, and whether
 * autovacuum visits it, from the real server's statistics. Autovacuum "on" needs a server that runs
 * it, outbox-testing's embedded one with PostgreSQL's defaults (the local CI server may run
 * without); "off" is a table whose storage parameter turns it off, on any server.
 */
class StatusTableUpkeepTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void statusCountsDeadTuplesAndShowsTheLastVacuumOnAServerWithAutovacuum() throws Exception {
    LogicalDatabase db = LogicalDatabase.freshOutbox();
    CliRunner cli = new CliRunner().withArgs(db.options());
    db.write(20);
    // Fewer dead tuples than autovacuum's threshold (50), so it leaves them for this test.
    deleteAllOnABackendOfItsOwn(db.schema);

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> table(cli.run("status", "--json")).get("dead_tuples").asLong() == 20);
    JsonNode before = table(cli.run("status", "--json"));
    assertThat(before.get("autovacuum").asBoolean()).isTrue();
    assertThat(before.get("live_tuples").asLong()).isZero();
    assertThat(before.get("size_bytes").asLong()).isPositive();
    assertThat(before.get("last_vacuum").isNull()).isTrue();
    assertThat(cli.run("status").out())
        .contains("events table:          ")
        .contains(" MB, 20 dead tuples, 0 live")
        .contains("last vacuum:           none recorded")
        .contains("autovacuum:            on");

    execute(LogicalDatabase.dataSource(), "VACUUM " + db.schema + ".outbox_events");

    // Before PostgreSQL 15 the vacuum's report reaches readers through the statistics collector,
    // a moment later.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !table(cli.run("status", "--json")).get("last_vacuum").isNull());
    JsonNode after = table(cli.run("status", "--json"));
    assertThat(after.get("dead_tuples").asLong()).isZero();
    assertThat(after.get("last_vacuum").asText()).endsWith("Z");
    assertThat(cli.run("status").out()).containsPattern("last vacuum: +[0-9][0-9a-z.]* ago");
  }

  @Test
  void statusSaysWhenAutovacuumDoesNotVisitTheTable() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_upkeep")) {
      CliRunner cli = CliRunner.forDatabase(db);
      db.execute("ALTER TABLE " + db.schema() + ".outbox_events SET (autovacuum_enabled = false)");

      CliRunner.Result json = cli.run("status", "--json");
      CliRunner.Result text = cli.run("status");

      assertThat(json.exitCode()).isZero();
      assertThat(table(json).get("autovacuum").asBoolean()).isFalse();
      assertThat(text.out())
          .contains(
              "autovacuum:            OFF for this table: its dead tuples grow until something"
                  + " vacuums it (run the relay with --vacuum-interval, or turn autovacuum on)");
    }
  }

  private static JsonNode table(CliRunner.Result r) throws Exception {
    assertThat(r.exitCode()).isZero();
    return JSON.readTree(r.out()).get("events_table");
  }

  /**
   * Deletes every event on a connection of its own and closes it: a backend that ends sends its
   * statistics on every PostgreSQL version (from 15 on also when idle, before that at most every
   * 500 ms while it lives), so the dead tuples reach the statistics the status reads.
   */
  private static void deleteAllOnABackendOfItsOwn(String schema) throws SQLException {
    try (Connection c = DriverManager.getConnection(LogicalDatabase.jdbcUrl(), "postgres", "");
        Statement s = c.createStatement()) {
      s.executeUpdate("DELETE FROM " + schema + ".outbox_events");
    }
  }

  private static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute(sql);
    }
  }
}
