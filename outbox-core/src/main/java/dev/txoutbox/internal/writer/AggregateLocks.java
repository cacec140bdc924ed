package dev.txoutbox.internal.writer;

import dev.txoutbox.schema.OutboxTables;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Serialises writers per aggregate with transaction-scoped advisory locks, so events of one
 * aggregate commit in the order of their {@code seq}: a second transaction writing the same
 * aggregate waits for the first to end before it takes its sequence numbers.
 *
 * <p>Aggregates are hashed onto {@value #SLOTS} lock slots per outbox (schema and table prefix), so
 * a transaction holds at most {@value #SLOTS} of these locks however many aggregates it writes
 * (PostgreSQL's lock table has room for {@code max_locks_per_transaction} × {@code max_connections}
 * locks, 6,400 by default). Each call takes the slots it needs in ascending order in one statement,
 * so transactions that each write through one call never deadlock. Two aggregates can share a slot;
 * their writers then wait for each other although they need not.
 *
 * <p>The locks are {@code pg_advisory_xact_lock(key1, key2)} with {@code key1} a hash of the schema
 * name (and of the table prefix, if any) and {@code key2} the slot: the two-key space, apart from
 * the one-key ({@code bigint}) space.
 */
final class AggregateLocks {

  /** Lock slots per outbox: at most this many advisory locks per transaction. */
  static final int SLOTS = 256;

  private final int namespace;

  AggregateLocks(OutboxTables tables) {
    // Without a prefix, the hash of earlier versions: writers of both versions share the slots.
    String outbox =
        tables.tablePrefix().isEmpty()
            ? tables.schema()
            : tables.schema() + "\0" + tables.tablePrefix();
    this.namespace = (int) fnv1a64("txoutbox\0" + outbox);
  }

  /** Takes the slots of every aggregate in {@code rows}, in ascending slot order. */
  void lock(DSLContext tx, List<EventRow> rows) {
    boolean[] needed = new boolean[SLOTS];
    int count = 0;
    for (EventRow row : rows) {
      int slot = slot(row.aggregateType(), row.aggregateId());
      if (!needed[slot]) {
        needed[slot] = true;
        if (++count == SLOTS) {
          break;
        }
      }
    }
    Integer[] ascending = new Integer[count];
    for (int slot = 0, i = 0; i < count; slot++) {
      if (needed[slot]) {
        ascending[i++] = slot;
      }
    }
    if (count == 1) {
      tx.select(lockFunction(DSL.val(ascending[0]))).fetch();
      return;
    }
    // jOOQ has no advisory-lock API; pg_advisory_xact_lock is called as a plain function. unnest
    // yields the array in order, so every writer takes its slots in ascending order.
    Table<?> slots = DSL.unnest(ascending).as("locks", "slot");
    Field<Integer> slot = slots.field("slot", Integer.class);
    tx.select(DSL.count(lockFunction(slot))).from(slots).fetch();
  }

  private Field<Object> lockFunction(Field<Integer> slot) {
    return DSL.function("pg_advisory_xact_lock", SQLDataType.OTHER, DSL.val(namespace), slot);
  }

  /** The slot of an aggregate, stable across processes and versions of this class. */
  static int slot(String aggregateType, String aggregateId) {
    long hash = fnv1a64(aggregateType + '\0' + aggregateId);
    // FNV's low bits mix poorly: fold the high bits in (the finaliser of MurmurHash3).
    hash ^= hash >>> 33;
    hash *= 0xff51afd7ed558ccdL;
    hash ^= hash >>> 33;
    return (int) (hash >>> 56);
  }

  private static long fnv1a64(String s) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }
}
