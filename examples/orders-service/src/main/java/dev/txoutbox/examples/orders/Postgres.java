package dev.txoutbox.examples.orders;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The PostgreSQL the example runs on, chosen in this order: the given JDBC URL ({@code
 * OUTBOX_JDBC_URL}); the local service on 127.0.0.1:5432 as user {@code postgres}, in database
 * {@value #LOCAL_DATABASE} (created when missing); an embedded PostgreSQL started from a Maven jar
 * and deleted on close. Closing releases the pool and stops an embedded server. Thread-safe.
 */
final class Postgres implements AutoCloseable {

  static final String LOCAL_DATABASE = "txoutbox_example";
  private static final String LOCAL_SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  private static final String LOCAL_USER = "postgres";

  private final HikariDataSource dataSource;
  private final EmbeddedPostgres embedded;
  private final String description;

  private Postgres(HikariDataSource dataSource, EmbeddedPostgres embedded, String description) {
    this.dataSource = dataSource;
    this.embedded = embedded;
    this.description = description;
  }

  /**
   * Connects to the first PostgreSQL available.
   *
   * @param jdbcUrl the server to use, or null to look for the local service, then embed one
   * @param user the user for {@code jdbcUrl}
   * @param password the password for {@code jdbcUrl} or the local service, or null
   * @param embeddedOnly skip the local service and start an embedded server
   * @param poolSize connections in the pool
   * @throws IllegalStateException if no PostgreSQL can be reached or started; the message says what
   *     was tried
   */
  static Postgres open(
      String jdbcUrl, String user, String password, boolean embeddedOnly, int poolSize) {
    if (jdbcUrl != null) {
      return new Postgres(pool(jdbcUrl, user, password, poolSize), null, redact(jdbcUrl));
    }
    String localProblem = "skipped (--embedded-postgres)";
    if (!embeddedOnly) {
      try {
        String url = ensureLocalDatabase(password);
        return new Postgres(
            pool(url, LOCAL_USER, password, poolSize), null, "local service, " + url);
      } catch (SQLException e) {
        localProblem = e.getMessage();
      }
    }
    EmbeddedPostgres server;
    try {
      server = EmbeddedPostgres.builder().start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "no PostgreSQL: OUTBOX_JDBC_URL is not set, the local service at 127.0.0.1:5432 was "
              + "not usable ("
              + localProblem
              + "), and the embedded PostgreSQL did not start ("
              + e.getMessage()
              + "). As root, the embedded server runs through `unshare -U`, which fails where "
              + "user namespaces are not allowed. Start a PostgreSQL or set OUTBOX_JDBC_URL.",
          e);
    }
    String url = server.getJdbcUrl("postgres", "postgres");
    try {
      return new Postgres(pool(url, "postgres", null, poolSize), server, "embedded, " + url);
    } catch (RuntimeException e) {
      closeQuietly(server);
      throw e;
    }
  }

  DataSource dataSource() {
    return dataSource;
  }

  /** Where the data lives, without credentials. */
  String description() {
    return description;
  }

  @Override
  public void close() {
    try {
      dataSource.close();
    } finally {
      if (embedded != null) {
        closeQuietly(embedded);
      }
    }
  }

  private static String ensureLocalDatabase(String password) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", LOCAL_USER);
    if (password != null) {
      props.setProperty("password", password);
    }
    props.setProperty("connectTimeout", "3");
    try (Connection c = DriverManager.getConnection(LOCAL_SERVER + "postgres", props)) {
      boolean exists =
          DSL.using(c, SQLDialect.POSTGRES)
              .fetchExists(
                  DSL.table(DSL.name("pg_catalog", "pg_database")),
                  DSL.field(DSL.name("datname")).eq(LOCAL_DATABASE));
      if (!exists) {
        try (Statement s = c.createStatement()) {
          // CREATE DATABASE is not part of jOOQ's PostgreSQL DDL support.
          s.execute("CREATE DATABASE " + LOCAL_DATABASE);
        } catch (SQLException e) {
          if (!"42P04".equals(e.getSQLState())) { // 42P04: created meanwhile by someone else
            throw e;
          }
        }
      }
    }
    return LOCAL_SERVER + LOCAL_DATABASE;
  }

  private static HikariDataSource pool(String url, String user, String password, int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    if (password != null) {
      config.setPassword(password);
    }
    config.setMaximumPoolSize(poolSize);
    config.setPoolName("orders-example");
    config.setConnectionTimeout(10_000);
    return new HikariDataSource(config);
  }

  /** The URL without a {@code password=} parameter or {@code user:password@} credentials. */
  static String redact(String jdbcUrl) {
    return jdbcUrl
        .replaceAll("(?i)(password=)[^&;]*", "$1***")
        .replaceAll("//([^/@:]+):[^/@]*@", "//$1:***@");
  }

  private static void closeQuietly(EmbeddedPostgres server) {
    try {
      server.close();
    } catch (IOException e) {
      // the temporary directory stays behind; nothing else to do
    }
  }
}
