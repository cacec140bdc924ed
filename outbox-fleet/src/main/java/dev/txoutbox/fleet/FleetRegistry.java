package dev.txoutbox.fleet;

import dev.txoutbox.schema.OutboxSchema;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The registry of outboxes a fleet serves: one row per {@link FleetOutbox} in the control
 * database's {@code fleet_outboxes} table ({@link FleetSchema}). Entries may be added, changed,
 * disabled and removed while nodes run: each change is one transaction (an added entry and its
 * lease row appear together), announced on {@value FleetSchema#CHANGE_CHANNEL} at commit, and seen
 * by every node at its next scan.
 *
 * <p>Every entry is validated by {@link FleetOutbox.Builder#build()} before it reaches this class,
 * so nothing invalid is ever written; the registry stores no secret, only references.
 *
 * <pre>{@code
 * FleetSchema.migrate(controlDataSource, FleetSchema.DEFAULT_SCHEMA);
 * FleetRegistry registry = FleetRegistry.create(controlDataSource, FleetSchema.DEFAULT_SCHEMA);
 * registry.add(FleetOutbox.builder("tenant-a")
 *     .jdbcUrl("jdbc:postgresql://db-a:5432/app").user("relay").password("env:TENANT_A_PASSWORD")
 *     .schema("billing").publisher("kafka").publisherSetting("bootstrap-servers", "kafka:9092")
 *     .build());
 * }</pre>
 *
 * <p>This type is thread-safe.
 */
public final class FleetRegistry {

  private static final String COLUMNS =
      "name, jdbc_url, db_user, password_ref, outbox_schema, table_prefix, kind, slot_name,"
          + " publisher, weight, enabled, version,"
          + " (SELECT coalesce(array_agg(key ORDER BY key), '{}') FROM"
          + " jsonb_each_text(publisher_settings)) AS setting_keys,"
          + " (SELECT coalesce(array_agg(value ORDER BY key), '{}') FROM"
          + " jsonb_each_text(publisher_settings)) AS setting_values";

  private final DataSource dataSource;
  private final String schema;

  private FleetRegistry(DataSource dataSource, String schema) {
    this.dataSource = dataSource;
    this.schema = schema;
  }

  /**
   * The registry in {@code schema} of the control database, migrated with {@link
   * FleetSchema#migrate}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static FleetRegistry create(DataSource dataSource, String schema) {
    Objects.requireNonNull(dataSource, "dataSource");
    return new FleetRegistry(dataSource, OutboxSchema.requireSchemaName(schema));
  }

  /** The control schema. */
  public String schema() {
    return schema;
  }

  /**
   * Every entry, by name.
   *
   * @throws FleetException if the control database cannot be read
   */
  public List<FleetOutbox> list() {
    return call(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + COLUMNS + " FROM " + table("fleet_outboxes") + " ORDER BY name")) {
            return read(ps);
          }
        },
        "list the outboxes");
  }

  /**
   * The entry named {@code name}, if there is one.
   *
   * @throws FleetException if the control database cannot be read
   */
  public Optional<FleetOutbox> get(String name) {
    Objects.requireNonNull(name, "name");
    return call(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT " + COLUMNS + " FROM " + table("fleet_outboxes") + " WHERE name = ?")) {
            ps.setString(1, name);
            return read(ps).stream().findFirst();
          }
        },
        "read outbox " + name);
  }

  /**
   * The members and every entry's lease, as the control database sees them now.
   *
   * @throws FleetException if the control database cannot be read
   */
  public FleetStatus status() {
    return call(c -> FleetStatus.read(c, schema), "read the fleet's status");
  }

  /**
   * Adds {@code outbox}, with a free lease, in one transaction.
   *
   * @return the entry as stored (version 1)
   * @throws IllegalStateException if an entry of that name exists
   * @throws FleetException if the control database cannot be written
   */
  public FleetOutbox add(FleetOutbox outbox) {
    Objects.requireNonNull(outbox, "outbox");
    return inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + table("fleet_outboxes")
                      + " (name, jdbc_url, db_user, password_ref, outbox_schema, table_prefix,"
                      + " kind, slot_name, publisher, publisher_settings, weight, enabled)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, jsonb_object(?::text[], ?::text[]),"
                      + " ?, ?) ON CONFLICT (name) DO NOTHING")) {
            bind(c, ps, outbox, 1);
            if (ps.executeUpdate() == 0) {
              throw new IllegalStateException(
                  "outbox " + outbox.name() + " must not exist to be added but does");
            }
          }
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO "
                      + table("fleet_leases")
                      + " (outbox) VALUES (?)"
                      + " ON CONFLICT (outbox) DO NOTHING")) {
            ps.setString(1, outbox.name());
            ps.executeUpdate();
          }
          announce(c, outbox.name());
          return outbox.toBuilder().version(1).build();
        },
        "add outbox " + outbox.name());
  }

  /**
   * Replaces every field of the entry named {@code outbox.name()} and increments its version; the
   * node that holds it restarts its relay with the new values.
   *
   * @return the entry as stored
   * @throws IllegalStateException if there is no such entry
   * @throws FleetException if the control database cannot be written
   */
  public FleetOutbox update(FleetOutbox outbox) {
    Objects.requireNonNull(outbox, "outbox");
    return inTransaction(
        c -> {
          long version;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + table("fleet_outboxes")
                      + " SET name = ?, jdbc_url = ?, db_user = ?, password_ref = ?,"
                      + " outbox_schema = ?, table_prefix = ?, kind = ?, slot_name = ?,"
                      + " publisher = ?, publisher_settings = jsonb_object(?::text[], ?::text[]),"
                      + " weight = ?, enabled = ?, version = version + 1, updated_at = now()"
                      + " WHERE name = ? RETURNING version")) {
            int next = bind(c, ps, outbox, 1);
            ps.setString(next, outbox.name());
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                throw new IllegalStateException(
                    "outbox " + outbox.name() + " must exist to be updated but does not");
              }
              version = rs.getLong(1);
            }
          }
          announce(c, outbox.name());
          return outbox.toBuilder().version(version).build();
        },
        "update outbox " + outbox.name());
  }

  /**
   * Enables or disables the entry named {@code name}: a disabled entry is released by its node and
   * served by none.
   *
   * @return whether the entry exists
   * @throws FleetException if the control database cannot be written
   */
  public boolean setEnabled(String name, boolean enabled) {
    Objects.requireNonNull(name, "name");
    return inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + table("fleet_outboxes")
                      + " SET enabled = ?, version = version + 1, updated_at = now()"
                      + " WHERE name = ?")) {
            ps.setBoolean(1, enabled);
            ps.setString(2, name);
            boolean found = ps.executeUpdate() > 0;
            if (found) {
              announce(c, name);
            }
            return found;
          }
        },
        (enabled ? "enable" : "disable") + " outbox " + name);
  }

  /**
   * Removes the entry named {@code name} and its lease; the node that served it stops its relay at
   * its next renewal. The outbox's own database is not touched.
   *
   * @return whether there was such an entry
   * @throws FleetException if the control database cannot be written
   */
  public boolean remove(String name) {
    Objects.requireNonNull(name, "name");
    return inTransaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("DELETE FROM " + table("fleet_outboxes") + " WHERE name = ?")) {
            ps.setString(1, name);
            boolean found = ps.executeUpdate() > 0;
            if (found) {
              announce(c, name);
            }
            return found;
          }
        },
        "remove outbox " + name);
  }

  private String table(String name) {
    return "\"" + schema + "\"." + name;
  }

  private static int bind(Connection c, PreparedStatement ps, FleetOutbox o, int first)
      throws SQLException {
    int i = first;
    ps.setString(i++, o.name());
    ps.setString(i++, o.jdbcUrl());
    ps.setString(i++, o.user());
    ps.setString(i++, o.password() == null ? null : String.valueOf(o.password()));
    ps.setString(i++, o.tables().schema());
    ps.setString(i++, o.tables().tablePrefix());
    ps.setString(i++, o.kind().dbName());
    ps.setString(i++, o.slotName());
    ps.setString(i++, o.publisher());
    Map<String, String> settings = o.publisherSettings();
    ps.setArray(i++, c.createArrayOf("text", settings.keySet().toArray()));
    ps.setArray(i++, c.createArrayOf("text", settings.values().toArray()));
    ps.setInt(i++, o.weight());
    ps.setBoolean(i++, o.enabled());
    return i;
  }

  private void announce(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, FleetSchema.CHANGE_CHANNEL);
      ps.setString(2, schema + "." + name);
      ps.execute();
    }
  }

  private static List<FleetOutbox> read(PreparedStatement ps) throws SQLException {
    List<FleetOutbox> out = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(row(rs));
      }
    }
    return out;
  }

  /** One row of {@link #COLUMNS}; also read by the node's scan. */
  static FleetOutbox row(ResultSet rs) throws SQLException {
    FleetOutbox.Builder b =
        FleetOutbox.builder(rs.getString("name"))
            .jdbcUrl(rs.getString("jdbc_url"))
            .user(rs.getString("db_user"))
            .password(rs.getString("password_ref"))
            .schema(rs.getString("outbox_schema"))
            .tablePrefix(rs.getString("table_prefix"))
            .kind(OutboxKind.fromDbName(rs.getString("kind")))
            .slotName(rs.getString("slot_name"))
            .publisher(rs.getString("publisher"))
            .weight(rs.getInt("weight"))
            .enabled(rs.getBoolean("enabled"))
            .version(rs.getLong("version"));
    String[] keys = strings(rs.getArray("setting_keys"));
    String[] values = strings(rs.getArray("setting_values"));
    for (int i = 0; i < keys.length; i++) {
      b.publisherSetting(keys[i], values[i]);
    }
    return b.build();
  }

  static String columns() {
    return COLUMNS;
  }

  private static String[] strings(@Nullable Array array) throws SQLException {
    return array == null ? new String[0] : (String[]) array.getArray();
  }

  private interface Work<T> {
    T run(Connection c) throws SQLException;
  }

  private <T> T call(Work<T> work, String what) {
    try (Connection c = dataSource.getConnection()) {
      return work.run(c);
    } catch (SQLException e) {
      throw new FleetException("cannot " + what + " in the fleet registry", e);
    }
  }

  private <T> T inTransaction(Work<T> work, String what) {
    return call(
        c -> {
          boolean auto = c.getAutoCommit();
          c.setAutoCommit(false);
          try {
            T result = work.run(c);
            c.commit();
            return result;
          } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
          } finally {
            c.setAutoCommit(auto);
          }
        },
        what);
  }
}
