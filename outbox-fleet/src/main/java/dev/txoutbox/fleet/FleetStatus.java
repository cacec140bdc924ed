package dev.txoutbox.fleet;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.SecretMasking;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the control database says about a fleet at one moment: the members and, for every entry of
 * the registry, its lease (who serves it, under which term, until when). Read-only, for a status
 * page, a probe or a CLI listing; it reads three tables in one snapshot and changes nothing. Every
 * time is the database's.
 *
 * <p>Immutable and thread-safe.
 */
public final class FleetStatus {

  /**
   * A member of the fleet.
   *
   * @param nodeId its id
   * @param startedAt when it joined
   * @param heartbeatAt its last heartbeat, which renews its leases in the same transaction: the
   *     last renewal of every lease it holds
   * @param expiresAt when it counts as gone without another heartbeat
   * @param alive whether {@code expiresAt} is still ahead
   */
  public record Node(
      String nodeId,
      OffsetDateTime startedAt,
      OffsetDateTime heartbeatAt,
      OffsetDateTime expiresAt,
      boolean alive) {}

  /**
   * An entry of the registry and its lease.
   *
   * @param name the entry's name
   * @param outbox the entry, or null if its stored values no longer pass validation
   * @param invalid why the entry is unusable, secrets masked, or null
   * @param owner the node named by the lease, or null if it was never taken or was released
   * @param term the lease's term, which grows at each takeover
   * @param acquiredAt when the owner took it, or null
   * @param expiresAt when the lease runs out without renewal, or null if it is free
   * @param live whether an owner holds it and it has not expired: the owner serves it
   * @param lastRenewal the owner's last heartbeat while the lease is live (the renewal of its
   *     leases), or null
   */
  public record Lease(
      String name,
      @Nullable FleetOutbox outbox,
      @Nullable String invalid,
      @Nullable String owner,
      long term,
      @Nullable OffsetDateTime acquiredAt,
      @Nullable OffsetDateTime expiresAt,
      boolean live,
      @Nullable OffsetDateTime lastRenewal) {}

  private final OffsetDateTime readAt;
  private final List<Node> nodes;
  private final List<Lease> leases;

  private FleetStatus(OffsetDateTime readAt, List<Node> nodes, List<Lease> leases) {
    this.readAt = readAt;
    this.nodes = Collections.unmodifiableList(nodes);
    this.leases = Collections.unmodifiableList(leases);
  }

  /**
   * Reads the fleet in control schema {@code schema} on {@code connection}, which must not be in a
   * transaction, in one snapshot (a repeatable-read transaction that writes nothing). The
   * connection's own settings (a statement timeout the caller set) apply; its auto-commit mode and
   * isolation level are put back, and it is left open.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   * @throws SQLException if the control database cannot be read
   */
  public static FleetStatus read(Connection connection, String schema) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    String s = "\"" + OutboxSchema.requireSchemaName(schema) + "\".";
    boolean auto = connection.getAutoCommit();
    int isolation = connection.getTransactionIsolation();
    connection.setAutoCommit(false);
    connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try {
      OffsetDateTime now;
      try (PreparedStatement ps = connection.prepareStatement("SELECT now()");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        now = rs.getObject(1, OffsetDateTime.class);
      }
      List<Node> nodes = new ArrayList<>();
      try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT node_id, started_at, heartbeat_at, expires_at, expires_at >= now()"
                      + " FROM "
                      + s
                      + "fleet_nodes ORDER BY node_id");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          nodes.add(
              new Node(
                  rs.getString(1),
                  rs.getObject(2, OffsetDateTime.class),
                  rs.getObject(3, OffsetDateTime.class),
                  rs.getObject(4, OffsetDateTime.class),
                  rs.getBoolean(5)));
        }
      }
      List<Lease> leases = new ArrayList<>();
      try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT "
                      + FleetRegistry.columns()
                      + ", l.owner, coalesce(l.term, 0) AS term, l.acquired_at,"
                      + " CASE WHEN l.owner IS NULL OR l.expires_at = '-infinity' THEN NULL"
                      + " ELSE l.expires_at END AS lease_expires_at,"
                      + " (l.owner IS NOT NULL AND l.expires_at >= now()) AS live,"
                      + " CASE WHEN l.owner IS NOT NULL AND l.expires_at >= now()"
                      + " THEN n.heartbeat_at END AS last_renewal"
                      + " FROM "
                      + s
                      + "fleet_outboxes LEFT JOIN "
                      + s
                      + "fleet_leases l ON l.outbox = name LEFT JOIN "
                      + s
                      + "fleet_nodes n ON n.node_id = l.owner ORDER BY name");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          leases.add(lease(rs));
        }
      }
      connection.commit();
      return new FleetStatus(now, nodes, leases);
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setTransactionIsolation(isolation);
      connection.setAutoCommit(auto);
    }
  }

  private static Lease lease(ResultSet rs) throws SQLException {
    FleetOutbox outbox = null;
    String invalid = null;
    try {
      outbox = FleetRegistry.row(rs);
    } catch (IllegalArgumentException e) {
      invalid = SecretMasking.maskText(e.getMessage());
    }
    return new Lease(
        rs.getString("name"),
        outbox,
        invalid,
        rs.getString("owner"),
        rs.getLong("term"),
        rs.getObject("acquired_at", OffsetDateTime.class),
        rs.getObject("lease_expires_at", OffsetDateTime.class),
        rs.getBoolean("live"),
        rs.getObject("last_renewal", OffsetDateTime.class));
  }

  /** The database's {@code now()} when this was read. */
  public OffsetDateTime readAt() {
    return readAt;
  }

  /** The members, alive or not (a node gone for a day is forgotten), by id. */
  public List<Node> nodes() {
    return nodes;
  }

  /** Every entry of the registry with its lease, by name. */
  public List<Lease> leases() {
    return leases;
  }

  @Override
  public String toString() {
    return "FleetStatus{readAt="
        + readAt
        + ", nodes="
        + nodes.size()
        + ", leases="
        + leases.size()
        + "}";
  }
}
