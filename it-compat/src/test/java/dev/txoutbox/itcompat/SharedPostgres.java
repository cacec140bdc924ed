package dev.txoutbox.itcompat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The shared PostgreSQL service on 127.0.0.1:5432 (user {@code postgres}, trust): a database of a
 * test class's own, created empty and dropped after, and small HikariCP pools on any URL.
 * Thread-safe.
 */
final class SharedPostgres {

  /** The service's port. */
  static final int PORT = 5432;

  private SharedPostgres() {}

  /** A direct JDBC URL of {@code database} on the shared service. */
  static String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + PORT + "/" + database;
  }

  /** Drops {@code database} if it exists (ending its sessions) and creates it empty. */
  static void recreateDatabase(String database) throws SQLException {
    drop(database);
    admin("CREATE DATABASE " + database);
  }

  /** Drops {@code database} if it exists, ending its sessions. */
  static void drop(String database) throws SQLException {
    admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
  }

  private static void admin(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url("postgres"), "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** A HikariCP pool of at most {@code size} connections on {@code url}, as user postgres. */
  static HikariDataSource pool(String name, String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    return new HikariDataSource(config);
  }
}
