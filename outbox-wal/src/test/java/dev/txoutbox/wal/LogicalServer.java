package dev.txoutbox.wal;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/**
 * One embedded PostgreSQL with {@code wal_level=logical} for the whole test JVM, started on first
 * use: the shared service's configuration is never touched. Each test takes a schema of its own.
 */
final class LogicalServer {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static volatile EmbeddedPostgres server;

  private LogicalServer() {}

  static synchronized EmbeddedPostgres server() {
    if (server == null) {
      try {
        EmbeddedPostgres started =
            EmbeddedPostgres.builder()
                .setServerConfig("wal_level", "logical")
                .setServerConfig("max_replication_slots", "32")
                .setServerConfig("max_wal_senders", "16")
                .setServerConfig("max_connections", "60")
                .start();
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        started.close();
                      } catch (IOException e) {
                        // the temporary directory stays behind
                      }
                    }));
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

  static String jdbcUrl() {
    return server().getJdbcUrl("postgres", "postgres");
  }

  static Properties credentials() {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    return p;
  }

  /** A replication connection to the server, as a test that reads a slot itself opens it. */
  static Connection replication() throws SQLException {
    Properties props = credentials();
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    return DriverManager.getConnection(jdbcUrl(), props);
  }

  /** A pgoutput stream of {@code slot}, whose publication has the slot's name, on {@code c}. */
  static PGReplicationStream stream(Connection c, String slot, boolean messages)
      throws SQLException {
    var b =
        c.unwrap(PGConnection.class)
            .getReplicationAPI()
            .replicationStream()
            .logical()
            .withSlotName(slot)
            .withSlotOption("proto_version", "1")
            .withSlotOption("publication_names", slot);
    if (messages) {
      b.withSlotOption("messages", "true");
    }
    return b.start();
  }

  /** A fresh schema with the outbox tables in it. */
  static OutboxTables freshOutbox(String prefix) {
    String schema = "wal_" + SCHEMAS.incrementAndGet();
    OutboxTables tables = OutboxTables.of(schema, prefix);
    OutboxSchema.migrate(dataSource(), tables);
    return tables;
  }

  static DSLContext dsl(OutboxTables tables) {
    return DSL.using(dataSource(), SQLDialect.POSTGRES, tables.settings(null));
  }

  static void execute(String sql) {
    try (Connection c = dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }
}
