package dev.txoutbox.console;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.wal.WalSlot;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The WAL relay's replication slot of an outbox ({@link WalSlot#defaultName(OutboxTables)}) as
 * {@code pg_replication_slots} shows it: active or not, lag in bytes and seconds, WAL retained.
 *
 * <p>The lag in seconds comes, while a relay reads the slot, from the server's replication
 * statistics ({@code pg_stat_replication.flush_lag} of the slot's sender: how long the relay took
 * to confirm what the server sent; 0 when it has confirmed everything and the server reset the
 * figure). Otherwise, and while the server has no figure though bytes are unconfirmed, it is the
 * age of the oldest pending event: how long the outbox has been waiting. {@code lagSecondsSource}
 * says which. Thread-safe.
 */
final class SlotState {

  private SlotState() {}

  /** The slot of {@code tables} as JSON, or null when there is none (no WAL relay). */
  static @Nullable Map<String, Object> read(
      DSLContext dsl,
      OutboxTables tables,
      java.util.function.Supplier<Optional<java.time.Duration>> oldestPending) {
    String name = WalSlot.defaultName(tables);
    Optional<WalSlot> found = WalSlot.find(dsl, name);
    if (found.isEmpty()) {
      return null;
    }
    WalSlot slot = found.get();
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("name", slot.name());
    json.put("type", slot.type());
    json.put("plugin", slot.plugin().orElse(null));
    json.put("active", slot.active());
    json.put("activePid", slot.activePid().isPresent() ? slot.activePid().getAsInt() : null);
    json.put("walStatus", slot.walStatus().orElse(null));
    json.put("lagBytes", slot.lagBytes().isPresent() ? slot.lagBytes().getAsLong() : null);
    Double flushLag =
        slot.activePid().isPresent() ? flushLag(dsl, slot.activePid().getAsInt()) : null;
    long lagBytes = slot.lagBytes().orElse(-1);
    if (flushLag != null || (slot.active() && lagBytes == 0)) {
      json.put("lagSeconds", flushLag != null ? flushLag : 0.0);
      json.put("lagSecondsSource", "replication statistics");
    } else {
      json.put("lagSeconds", oldestPending.get().map(age -> age.toMillis() / 1000.0).orElse(0.0));
      json.put("lagSecondsSource", "oldest pending event");
    }
    json.put("retainedBytes", slot.restartLsn().map(lsn -> retained(dsl, lsn)).orElse(null));
    json.put("confirmedFlushLsn", slot.confirmedFlushLsn().orElse(null));
    json.put("restartLsn", slot.restartLsn().orElse(null));
    return json;
  }

  /** The sender's {@code flush_lag} in seconds, or null when the server has no figure. */
  private static @Nullable Double flushLag(DSLContext dsl, int pid) {
    return dsl.select(
            DSL.field(
                "(select extract(epoch from flush_lag)::float8 from pg_stat_replication"
                    + " where pid = {0})",
                Double.class, DSL.val(pid)))
        .fetchSingle()
        .value1();
  }

  /** Bytes of WAL the server keeps for a slot that restarts at {@code restartLsn}. */
  private static @Nullable Long retained(DSLContext dsl, String restartLsn) {
    return dsl.select(
            DSL.field(
                "pg_wal_lsn_diff(pg_current_wal_insert_lsn(), {0}::pg_lsn)::bigint",
                Long.class, DSL.val(restartLsn)))
        .fetchSingle()
        .value1();
  }
}
