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
 * {@code pg_replication_slots} shows it: active or not, lag in bytes, WAL retained. Thread-safe.
 */
final class SlotState {

  private SlotState() {}

  /** The slot of {@code tables} as JSON, or null when there is none (no WAL relay). */
  static @Nullable Map<String, Object> read(DSLContext dsl, OutboxTables tables) {
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
    json.put("retainedBytes", slot.restartLsn().map(lsn -> retained(dsl, lsn)).orElse(null));
    json.put("confirmedFlushLsn", slot.confirmedFlushLsn().orElse(null));
    json.put("restartLsn", slot.restartLsn().orElse(null));
    return json;
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
