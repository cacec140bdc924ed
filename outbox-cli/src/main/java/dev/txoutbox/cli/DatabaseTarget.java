package dev.txoutbox.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.SecretMasking;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.Driver;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Where the outbox lives: JDBC URL, credentials, schema and table prefix, resolved from the options
 * and the environment, and the ways to connect to it. Immutable; the password never appears in
 * {@link #toString()}, and once resolved, the password and the secrets of the URL are {@linkplain
 * OutputMasking hidden} from everything the CLI prints or logs.
 */
final class DatabaseTarget {

  static final String ENV_JDBC_URL = "OUTBOX_JDBC_URL";
  static final String ENV_USER = "OUTBOX_DB_USER";
  static final String ENV_PASSWORD = "OUTBOX_DB_PASSWORD";

  private static final String APPLICATION_NAME = "txoutbox";

  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final OutboxTables tables;

  private DatabaseTarget(String jdbcUrl, String user, String password, OutboxTables tables) {
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.tables = tables;
  }

  /**
   * Reads the target from {@code options}, falling back to {@code env}.
   *
   * @throws IllegalArgumentException naming the option that is missing or invalid
   */
  static DatabaseTarget resolve(TxoutboxCommand options, Map<String, String> env) {
    String url = firstNonBlank(options.jdbcUrl, env.get(ENV_JDBC_URL));
    if (url == null) {
      throw new IllegalArgumentException(
          "--jdbc-url (or " + ENV_JDBC_URL + ") must be given but was not");
    }
    OutputMasking.hide(SecretMasking.secretsIn(url));
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "--jdbc-url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database) but was "
              + SecretMasking.maskUri(url));
    }
    String user = firstNonBlank(options.user, env.get(ENV_USER));
    String password =
        options.passwordFile != null
            ? readPassword(options.passwordFile)
            : firstNonBlank(env.get(ENV_PASSWORD), null);
    if (password != null) {
      OutputMasking.hide(List.of(password));
    }
    String schema = options.schema == null ? OutboxSchema.DEFAULT_SCHEMA : options.schema;
    OutboxTables tables =
        OutboxTables.of(
            schema,
            options.tablePrefix == null ? "" : options.tablePrefix,
            "--schema",
            "--table-prefix");
    DatabaseTarget target = new DatabaseTarget(url, user, password, tables);
    target.simpleDataSource(); // rejects a URL the driver cannot parse
    return target;
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  String schema() {
    return tables.schema();
  }

  /** The schema and the table prefix. */
  OutboxTables tables() {
    return tables;
  }

  /**
   * The outbox for the user: {@code schema billing}, or {@code schema billing, table prefix bill_}.
   */
  String describeOutbox() {
    return "schema "
        + tables.schema()
        + (tables.tablePrefix().isEmpty() ? "" : ", table prefix " + tables.tablePrefix());
  }

  /** The JDBC URL with any password in it hidden. */
  String maskedUrl() {
    return SecretMasking.maskUri(jdbcUrl);
  }

  /**
   * A data source opening one connection per use, for one-shot commands, after checking that the
   * database answers.
   *
   * @throws DatabaseUnavailableException if it does not
   */
  DataSource connect() {
    PGSimpleDataSource ds = simpleDataSource();
    probe(ds);
    return ds;
  }

  /**
   * A data source opening one connection per use, with the commands' {@linkplain ConnectionDefaults
   * connection defaults}, without probing: for the console beside the relay, whose database has
   * just answered.
   */
  DataSource dataSource() {
    return simpleDataSource();
  }

  /**
   * A connection pool for the relay; the relay {@link #probe() probes} the database first (so an
   * unreachable database is one clear line, not a pool's stack trace).
   *
   * @param registry where the pool's metrics go, or null
   */
  HikariDataSource pool(String poolName, int size, MeterRegistry registry) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setPassword(password);
    config.setPoolName(poolName);
    config.setMaximumPoolSize(size);
    config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
    config.addDataSourceProperty("ApplicationName", APPLICATION_NAME + "-relay");
    ConnectionDefaults.missingFrom(jdbcUrl, ConnectionDefaults.Use.RELAY)
        .forEach(config::addDataSourceProperty);
    if (registry != null) {
      config.setMetricsTrackerFactory(new MicrometerMetricsTrackerFactory(registry));
    }
    return new HikariDataSource(config);
  }

  /**
   * The user and password for a connection of the driver's own to {@code replicationUrl}, the WAL
   * relay's replication connection, with the application name {@code txoutbox-wal} and the relay's
   * {@linkplain ConnectionDefaults connection defaults} that URL does not set.
   */
  Properties replicationProperties(String replicationUrl) {
    Properties p = new Properties();
    p.putAll(ConnectionDefaults.missingFrom(replicationUrl, ConnectionDefaults.Use.RELAY));
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    p.setProperty("ApplicationName", APPLICATION_NAME + "-wal");
    return p;
  }

  /** What the database refused or why it could not be reached, in one line. */
  static String reason(SQLException e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message =
        root instanceof UnknownHostException
            ? "unknown host " + root.getMessage()
            : root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    return OutputMasking.mask(message.lines().findFirst().orElse(message).trim());
  }

  /**
   * The URL, the user and whether a password is given (never the password itself), from the
   * options, the environment, a password file or the URL's own parameters ({@code
   * ?user=app&password=...}).
   */
  @Override
  public String toString() {
    Properties inUrl = Driver.parseURL(jdbcUrl, null);
    String urlUser = inUrl == null ? null : inUrl.getProperty("user");
    boolean urlPassword = inUrl != null && inUrl.getProperty("password") != null;
    return "url="
        + maskedUrl()
        + ", user="
        + (user != null ? user : urlUser != null ? urlUser : "(driver default)")
        + ", password "
        + (password != null || urlPassword ? "given" : "none")
        + ", schema="
        + tables.schema()
        + (tables.tablePrefix().isEmpty() ? "" : ", table prefix=" + tables.tablePrefix());
  }

  /**
   * The relay's {@linkplain ConnectionDefaults connection defaults} this target's URL does not set,
   * as URL parameters: {@code connectTimeout=10&socketTimeout=60&tcpKeepAlive=true}, or {@code
   * none}.
   */
  String relayDefaults() {
    return ConnectionDefaults.describe(
        ConnectionDefaults.missingFrom(jdbcUrl, ConnectionDefaults.Use.RELAY));
  }

  private PGSimpleDataSource simpleDataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    try {
      ds.setURL(jdbcUrl);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--jdbc-url must be a valid URL but was " + maskedUrl());
    }
    if (user != null) {
      ds.setUser(user);
    }
    if (password != null) {
      ds.setPassword(password);
    }
    if (ds.getApplicationName() == null
        || ds.getApplicationName().equals("PostgreSQL JDBC Driver")) {
      ds.setApplicationName(APPLICATION_NAME);
    }
    for (Map.Entry<String, String> d :
        ConnectionDefaults.missingFrom(jdbcUrl, ConnectionDefaults.Use.COMMAND).entrySet()) {
      try {
        ds.setProperty(d.getKey(), d.getValue());
      } catch (SQLException e) {
        throw new IllegalStateException("pgjdbc must know the property " + d.getKey(), e);
      }
    }
    return ds;
  }

  /**
   * Checks that the database answers.
   *
   * @throws DatabaseUnavailableException if it does not
   */
  void probe() {
    probe(simpleDataSource());
  }

  private void probe(DataSource ds) {
    try (Connection c = ds.getConnection()) {
      c.isValid(5);
    } catch (SQLException e) {
      String verb =
          e.getSQLState() != null && e.getSQLState().startsWith("08") ? "reach" : "connect to";
      throw new DatabaseUnavailableException(
          "cannot " + verb + " the database at " + maskedUrl() + ": " + reason(e), e);
    }
  }

  private static String readPassword(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return lines.isEmpty() ? "" : lines.get(0);
    } catch (IOException e) {
      throw PropertiesFile.unreadable("--password-file", file, e);
    }
  }

  private static String firstNonBlank(String a, String b) {
    if (a != null && !a.isBlank()) {
      return a;
    }
    return b != null && !b.isBlank() ? b : null;
  }
}
