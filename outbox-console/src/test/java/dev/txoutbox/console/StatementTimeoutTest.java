package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every statement of the console runs under its statement timeout, and the connection goes back to
 * the pool without it.
 */
class StatementTimeoutTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @Test
  void aPageWhoseQueryWaitsPastTheTimeoutIsCancelledAndThePoolKeepsItsOwnSetting()
      throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(1);
    try (HikariDataSource pool = new HikariDataSource(config);
        RunningConsole console =
            RunningConsole.start(
                OutboxConsole.builder()
                    .outbox("main", pool, OutboxTables.in(db.schema()))
                    .statementTimeout(Duration.ofMillis(250))
                    .port(0));
        Connection locker = db.dataSource().getConnection()) {
      locker.setAutoCommit(false);
      try (Statement s = locker.createStatement()) {
        s.execute("lock table " + db.schema() + ".outbox_events in access exclusive mode");
      }

      HttpResponse<String> overview = console.client.get("api/o/main/overview");
      HttpResponse<String> events = console.client.get("api/o/main/events");
      locker.rollback();

      assertThat(overview.statusCode()).isEqualTo(503);
      assertThat(overview.body())
          .contains("the query ran longer than the console's statement timeout of 250ms");
      assertThat(events.statusCode()).isEqualTo(503);
      try (Connection c = pool.getConnection();
          Statement s = c.createStatement();
          ResultSet r = s.executeQuery("show statement_timeout")) {
        r.next();
        assertThat(r.getString(1)).isEqualTo("0");
      }
      assertThat(console.client.get("api/o/main/overview").statusCode()).isEqualTo(200);
    }
  }
}
