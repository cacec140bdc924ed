package dev.txoutbox.console;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;

/**
 * Connections of the console's data source with PostgreSQL's {@code statement_timeout} set, so that
 * every statement the console runs (its own queries and the admin's) is cancelled by the server
 * past the timeout. The setting is made when a connection is borrowed and reset to the session's
 * default when it is given back, so a shared pool's other users never inherit it. Thread-safe.
 */
final class TimeoutConnections implements ConnectionProvider {

  private final DataSource dataSource;
  private final String set;

  TimeoutConnections(DataSource dataSource, Duration statementTimeout) {
    this.dataSource = dataSource;
    this.set = "SET statement_timeout = " + statementTimeout.toMillis();
  }

  @Override
  public Connection acquire() {
    Connection c;
    try {
      c = dataSource.getConnection();
    } catch (SQLException e) {
      throw new DataAccessException("cannot get a connection: " + e.getMessage(), e);
    }
    try {
      run(c, set);
      return c;
    } catch (SQLException e) {
      try {
        c.close();
      } catch (SQLException closing) {
        e.addSuppressed(closing);
      }
      throw new DataAccessException("cannot set statement_timeout: " + e.getMessage(), e);
    }
  }

  @Override
  public void release(Connection connection) {
    try (connection) {
      run(connection, "RESET statement_timeout");
    } catch (SQLException e) {
      throw new DataAccessException("cannot reset statement_timeout: " + e.getMessage(), e);
    }
  }

  private static void run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
