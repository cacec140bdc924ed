package dev.txoutbox.fleet.internal;

import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.spi.SecretMasking;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The registry and the leases as one transaction saw them. Not thread-safe; used by one thread. */
public final class Snapshot {

  /**
   * One outbox and its lease.
   *
   * @param name the entry's name
   * @param outbox the entry, or null if its stored values no longer pass validation
   * @param invalid why the entry is unusable, or null
   * @param owner the node holding a live lease, or null if the lease is free or expired
   * @param term the lease's current term
   */
  public record Row(
      String name,
      @Nullable FleetOutbox outbox,
      @Nullable String invalid,
      @Nullable String owner,
      long term) {}

  private final List<Row> rows = new ArrayList<>();
  private int liveNodes;

  /** A snapshot of {@code rows} and {@code liveNodes}, for tests of the balancing. */
  public static Snapshot of(List<Row> rows, int liveNodes) {
    Snapshot s = new Snapshot();
    s.rows.addAll(rows);
    s.liveNodes = liveNodes;
    return s;
  }

  void add(ResultSet rs, LeaseStore.RowReader<FleetOutbox> reader) throws SQLException {
    String name = rs.getString("name");
    boolean live = rs.getBoolean("live");
    String owner = live ? rs.getString("owner") : null;
    long term = rs.getLong("term");
    try {
      rows.add(new Row(name, reader.read(rs), null, owner, term));
    } catch (IllegalArgumentException e) {
      rows.add(new Row(name, null, SecretMasking.maskText(e.getMessage()), owner, term));
    }
  }

  void liveNodes(int count) {
    this.liveNodes = count;
  }

  /** Every outbox in the registry, by name. */
  public List<Row> rows() {
    return Collections.unmodifiableList(rows);
  }

  /** Nodes whose heartbeat has not expired, at least 1. */
  public int liveNodes() {
    return Math.max(1, liveNodes);
  }
}
