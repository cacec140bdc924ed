package dev.txoutbox.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A schema of its own on the real PostgreSQL for one test class, migrated and dropped on close.
 *
 * <p>The server comes from {@code OUTBOX_TEST_JDBC_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/txoutbox_test}, user {@code postgres}); the database is created
 * when missing. Each instance owns a uniquely named schema, so test classes running in parallel
 * never see each other's rows.
 */
public final class TestDatabase implements AutoCloseable {

  private static final String URL =
      System.getenv()
          .getOrDefault("OUTBOX_TEST_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/txoutbox_test");
  private static final String USER =
      System.getenv().getOrDefault("OUTBOX_TEST_DB_USER", "postgres");
  private static final String PASSWORD =
      System.getenv().getOrDefault("OUTBOX_TEST_DB_PASSWORD", "");

  private final String schema;
  private final HikariDataSource dataSource;

  private TestDatabase(String schema, int poolSize) {
    this.schema = schema;
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(URL);
    config.setUsername(USER);
    config.setPassword(PASSWORD);
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("test-" + schema);
    this.dataSource = new HikariDataSource(config);
  }

  /** A new, empty, migrated schema named after {@code prefix} with a pool of 10 connections. */
  public static TestDatabase create(String prefix) {
    return create(prefix, 10);
  }

  /** A new, empty, migrated schema named after {@code prefix}. */
  public static TestDatabase create(String prefix, int poolSize) {
    TestDatabase db = createEmpty(prefix, poolSize);
    OutboxSchema.migrate(db.dataSource, db.schema);
    return db;
  }

  /** A new schema name reserved for {@code prefix}, not yet created or migrated. */
  public static TestDatabase createEmpty(String prefix, int poolSize) {
    ensureDatabase();
    String schema =
        (prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_")
                + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10))
            .replaceFirst("^([0-9])", "s$1");
    return new TestDatabase(schema, poolSize);
  }

  /** The pooled data source. */
  public DataSource dataSource() {
    return dataSource;
  }

  /** This test's schema. */
  public String schema() {
    return schema;
  }

  /** The JDBC URL of the test database (without credentials). */
  public static String jdbcUrl() {
    return URL;
  }

  /** Runs one SQL statement outside any transaction, for test set-up. */
  public void execute(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  @Override
  public void close() {
    try {
      execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } finally {
      dataSource.close();
    }
  }

  private static synchronized void ensureDatabase() {
    String database = URL.substring(URL.lastIndexOf('/') + 1).replaceAll("\\?.*", "");
    String adminUrl = URL.substring(0, URL.lastIndexOf('/') + 1) + "postgres";
    try (Connection c = DriverManager.getConnection(URL, USER, PASSWORD)) {
      return; // exists
    } catch (SQLException missing) {
      // fall through and create it
    }
    try (Connection c = DriverManager.getConnection(adminUrl, USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + database);
    } catch (SQLException e) {
      // 42P04: another test JVM created it first
      if (!"42P04".equals(e.getSQLState()) && !"23505".equals(e.getSQLState())) {
        throw new IllegalStateException("cannot create test database " + database, e);
      }
    }
  }
}
