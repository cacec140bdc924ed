package dev.txoutbox.itdebezium;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * One embedded PostgreSQL with {@code wal_level=logical} for the test JVM, started on first use and
 * stopped at exit, so the shared server's configuration is never touched. Its superuser {@code
 * postgres} connects without a password, also for replication.
 */
final class LogicalPostgres {

  private static EmbeddedPostgres server;

  private LogicalPostgres() {}

  static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        EmbeddedPostgres started =
            EmbeddedPostgres.builder()
                .setServerConfig("wal_level", "logical")
                .setServerConfig("max_replication_slots", "4")
                .setServerConfig("max_wal_senders", "4")
                .start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(started)));
        server = started;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return server;
  }

  static DataSource dataSource() {
    return server().getPostgresDatabase();
  }

  static int port() {
    return server().getPort();
  }

  static int execute(String sql) {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
      return s.getUpdateCount();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  /** The plan of {@code sql} with sequential scans ruled out, so an index that fits shows. */
  static String planWithoutSeqScan(String sql) {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET enable_seqscan = off");
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      return plan.toString();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static void closeQuietly(EmbeddedPostgres started) {
    try {
      started.close();
    } catch (IOException e) {
      // the temporary data directory stays behind
    }
  }
}
