package dev.txoutbox.fleet;

import dev.txoutbox.schema.OutboxSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Databases of the test's own on the local PostgreSQL service, dropped by {@link #close()}. */
final class FleetDatabases implements AutoCloseable {

  static final String HOST_URL = "jdbc:postgresql://127.0.0.1:5432/";
  private final List<String> created = new ArrayList<>();
  private final String prefix =
      "fleet_" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT) + "_";

  /** A new empty database; returns its JDBC URL (no password: the service trusts local users). */
  String create(String name) throws SQLException {
    String db = prefix + name;
    try (Connection c = DriverManager.getConnection(HOST_URL + "postgres", "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + db);
    }
    created.add(db);
    return HOST_URL + db;
  }

  static DataSource dataSource(String url) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(url);
    ds.setUser("postgres");
    return ds;
  }

  /** Migrates an outbox in {@code schema} of the database at {@code url}. */
  static void migrateOutbox(String url, String schema) {
    OutboxSchema.migrate(dataSource(url), schema);
  }

  /** Inserts {@code count} events into the outbox in {@code schema}; returns their ids. */
  static List<UUID> insertEvents(String url, String schema, int count) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (Connection c = dataSource(url).getConnection();
        Statement s = c.createStatement()) {
      for (int i = 0; i < count; i++) {
        UUID id = UUID.randomUUID();
        ids.add(id);
        s.addBatch(
            "INSERT INTO "
                + schema
                + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload) VALUES ('"
                + id
                + "', 'order', '"
                + i
                + "', 'order.created', '{}')");
      }
      s.executeBatch();
    }
    return ids;
  }

  @Override
  public void close() throws SQLException {
    try (Connection c = DriverManager.getConnection(HOST_URL + "postgres", "postgres", "");
        Statement s = c.createStatement()) {
      for (String db : created) {
        s.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
      }
    }
  }
}
