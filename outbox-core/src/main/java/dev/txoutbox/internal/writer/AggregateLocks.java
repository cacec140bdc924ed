package dev.txoutbox.internal.writer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeSet;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Serialises writers per aggregate with transaction-scoped advisory locks, so events of one
 * aggregate commit in the order of their {@code seq}: a second transaction writing the same
 * aggregate waits for the first to end before it takes its sequence numbers.
 */
final class AggregateLocks {

  private AggregateLocks() {}

  /** Takes the locks of every aggregate in {@code rows}, in ascending key order (no deadlocks). */
  static void lock(DSLContext tx, List<EventRow> rows) {
    TreeSet<Long> keys = new TreeSet<>();
    for (EventRow row : rows) {
      keys.add(key(row.aggregateType(), row.aggregateId()));
    }
    Table<?> sorted = DSL.unnest(keys.toArray(Long[]::new)).as("locks", "k");
    Field<Long> k = sorted.field("k", Long.class);
    // jOOQ has no advisory-lock API; pg_advisory_xact_lock is called as a plain function. unnest
    // yields the array in order, so every writer takes its locks in ascending key order.
    tx.select(DSL.function("pg_advisory_xact_lock", SQLDataType.OTHER, k)).from(sorted).fetch();
  }

  /** A stable 64-bit key for an aggregate: FNV-1a over type, a NUL separator and id. */
  static long key(String aggregateType, String aggregateId) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : (aggregateType + '\0' + aggregateId).getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }
}
