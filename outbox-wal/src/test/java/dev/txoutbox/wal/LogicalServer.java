package dev.txoutbox.wal;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.postgresql.PGConnection;
import org.postgresql.replication.PGReplicationStream;

/**
 * The WAL tests' outboxes on outbox-testing's {@link dev.txoutbox.testing.LogicalServer}: the JVM's
 * shared embedded server with {@code wal_level=logical}, where each test takes a schema of its own,
 * an embedded server of a test's own for settings the shared one must not have ({@link #ofItsOwn}),
 * and a PostgreSQL 15 cluster of a test's own ({@link #pg15()}) for what differs there.
 */
final class LogicalServer {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();

  private LogicalServer() {}

  static dev.txoutbox.testing.LogicalServer server() {
    return dev.txoutbox.testing.LogicalServer.shared();
  }

  /** Whether the PostgreSQL 15 binaries are installed, for {@link #pg15()}. */
  static boolean pg15Available() {
    return dev.txoutbox.testing.LogicalServer.available(15);
  }

  /**
   * A PostgreSQL 15 cluster of the caller's own, which it may stop and start and must close: since
   * 15, {@code pgoutput} sends no empty transaction.
   */
  static dev.txoutbox.testing.LogicalServer pg15() throws IOException, InterruptedException {
    return dev.txoutbox.testing.LogicalServer.cluster(15, Map.of());
  }

  /**
   * An embedded server of the caller's own with {@code settings} in its {@code postgresql.conf},
   * which it must close: for settings the shared server must not have.
   */
  static dev.txoutbox.testing.LogicalServer ofItsOwn(Map<String, String> settings)
      throws IOException {
    return dev.txoutbox.testing.LogicalServer.embedded(settings);
  }

  static DataSource dataSource() {
    return server().dataSource();
  }

  /** The JDBC URL of the {@code postgres} database, with {@code user=postgres} in it. */
  static String jdbcUrl() {
    return server().jdbcUrl() + "?user=postgres";
  }

  static Properties credentials() {
    return server().credentials();
  }

  /** A replication connection to the server, as a test that reads a slot itself opens it. */
  static Connection replication() throws SQLException {
    return server().replication();
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
    server().execute(sql);
  }
}
