package dev.txoutbox.fleet.internal;

import dev.txoutbox.fleet.FleetOutbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * The statements on {@code fleet_nodes} and {@code fleet_leases}. Every time is the database's
 * {@code now()}: the database alone decides whether a lease has expired, so no node's clock takes
 * part. Every renewal and release names the term it holds, so it can never touch a later owner's
 * lease. Thread-safe: each call uses its own connection.
 */
public final class LeaseStore {

  /** Reads one row. */
  @FunctionalInterface
  public interface RowReader<T> {
    /** The value of the current row. */
    T read(ResultSet rs) throws SQLException;
  }

  private final DataSource dataSource;
  private final String schema;
  private final long ttlMillis;
  private final int timeoutSeconds;

  /**
   * @param ttl how long a lease and a heartbeat last past the statement that sets them
   */
  public LeaseStore(DataSource dataSource, String schema, Duration ttl) {
    this.dataSource = dataSource;
    this.schema = schema;
    this.ttlMillis = ttl.toMillis();
    this.timeoutSeconds = (int) Math.max(1, ttl.toSeconds() / 2);
  }

  private String t(String table) {
    return "\"" + schema + "\"." + table;
  }

  /**
   * Heartbeats {@code node} and renews each lease of {@code held} (outbox to term) it still owns,
   * in one transaction.
   *
   * @return the leases renewed: outbox to term. A lease missing from it was taken over or removed.
   */
  public Map<String, Long> heartbeat(String node, Map<String, Long> held) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + t("fleet_nodes")
                    + " (node_id, expires_at) VALUES (?, now() + ? * interval '1 millisecond')"
                    + " ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = now(),"
                    + " expires_at = excluded.expires_at")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.setString(1, node);
          ps.setLong(2, ttlMillis);
          ps.executeUpdate();
        }
        Map<String, Long> renewed = new HashMap<>();
        if (!held.isEmpty()) {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE "
                      + t("fleet_leases")
                      + " l SET expires_at = now() + ? * interval '1 millisecond'"
                      + " FROM unnest(?::text[], ?::bigint[]) AS h(outbox, term)"
                      + " WHERE l.outbox = h.outbox AND l.term = h.term AND l.owner = ?"
                      + " RETURNING l.outbox, l.term")) {
            ps.setQueryTimeout(timeoutSeconds);
            ps.setLong(1, ttlMillis);
            ps.setArray(2, c.createArrayOf("text", held.keySet().toArray()));
            ps.setArray(3, c.createArrayOf("bigint", held.values().toArray()));
            ps.setString(4, node);
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                renewed.put(rs.getString(1), rs.getLong(2));
              }
            }
          }
        }
        c.commit();
        return renewed;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  /**
   * Takes the lease of {@code outbox} if it is free or expired and the outbox is enabled: one
   * UPDATE, so of two nodes trying at once exactly one wins.
   *
   * @return the new term, or empty if another node holds it
   */
  public OptionalLong acquire(String node, String outbox) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + t("fleet_leases")
                    + " SET owner = ?, term = term + 1, acquired_at = now(),"
                    + " expires_at = now() + ? * interval '1 millisecond'"
                    + " WHERE outbox = ? AND (owner IS NULL OR expires_at < now())"
                    + " AND EXISTS (SELECT 1 FROM "
                    + t("fleet_outboxes")
                    + " o WHERE o.name = outbox AND o.enabled) RETURNING term")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, node);
      ps.setLong(2, ttlMillis);
      ps.setString(3, outbox);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
      }
    }
  }

  /**
   * Frees the lease of {@code outbox} if {@code node} still holds it at {@code term}, so another
   * node may take it at once.
   *
   * @return whether it was released
   */
  public boolean release(String node, String outbox, long term) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + t("fleet_leases")
                    + " SET owner = NULL, expires_at = '-infinity'"
                    + " WHERE outbox = ? AND owner = ? AND term = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, outbox);
      ps.setString(2, node);
      ps.setLong(3, term);
      return ps.executeUpdate() > 0;
    }
  }

  /** Removes {@code node} from the members, as it leaves. */
  public void leave(String node) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("DELETE FROM " + t("fleet_nodes") + " WHERE node_id = ?")) {
      ps.setQueryTimeout(timeoutSeconds);
      ps.setString(1, node);
      ps.executeUpdate();
    }
  }

  /**
   * The state a balancing decision needs, read in one snapshot: each lease as the database sees it
   * now, and the number of live nodes. Also creates a missing lease row and forgets nodes dead for
   * a day.
   */
  public Snapshot snapshot(String outboxColumns, RowReader<FleetOutbox> reader)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + t("fleet_leases")
                    + " (outbox) SELECT name FROM "
                    + t("fleet_outboxes")
                    + " ON CONFLICT (outbox) DO NOTHING")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.executeUpdate();
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "DELETE FROM "
                    + t("fleet_nodes")
                    + " WHERE expires_at < now() - interval '1 day'")) {
          ps.setQueryTimeout(timeoutSeconds);
          ps.executeUpdate();
        }
        c.commit();
        // The reads see one snapshot; the writes above ran at read committed, where a concurrent
        // node's insert is not a serialization failure.
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        Snapshot snapshot = new Snapshot();
        try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT "
                    + outboxColumns
                    + ", l.owner, l.term, (l.owner IS NOT NULL AND l.expires_at >= now()) AS live"
                    + " FROM "
                    + t("fleet_outboxes")
                    + " LEFT JOIN "
                    + t("fleet_leases")
                    + " l ON l.outbox = name ORDER BY name")) {
          ps.setQueryTimeout(timeoutSeconds);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              snapshot.add(rs, reader);
            }
          }
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM " + t("fleet_nodes") + " WHERE expires_at >= now()")) {
          ps.setQueryTimeout(timeoutSeconds);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            snapshot.liveNodes(rs.getInt(1));
          }
        }
        c.commit();
        return snapshot;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }
}
