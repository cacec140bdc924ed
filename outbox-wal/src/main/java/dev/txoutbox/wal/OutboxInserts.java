package dev.txoutbox.wal;

import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Turns a stream of {@link PgOutput} messages into the outbox inserts of each committed
 * transaction: remembers the relations announced, keeps inserts into {@code
 * <schema>.<prefix>outbox_events} only, and hands a transaction's events over at its commit. Events
 * inserted with a delay ({@code retry_after} set) are left to the polling relay. Not thread-safe:
 * one per stream.
 */
final class OutboxInserts {

  /**
   * The inserts of one committed transaction, its id (the server's 32-bit {@code xid}), the
   * position to confirm after them and the commit time, microseconds since 2000-01-01 UTC; how many
   * were left to the polling relay for a delay, and, for each insert that could not be read into a
   * message, its id and why.
   */
  record Transaction(
      int xid,
      long endLsn,
      long commitMicros,
      List<OutboxMessage> events,
      int delayed,
      List<Unreadable> unreadable) {}

  /**
   * An insert the relay cannot publish: the polling relay publishes it, or dead-letters it if it
   * cannot read it either. {@code id} is null when the stream does not carry it (a column list).
   */
  record Unreadable(@Nullable UUID id, String reason) {}

  /**
   * Where the outbox table's columns are in a Relation message, by {@link #NEEDED}'s order (-1 for
   * a column the stream does not carry), and the needed columns it does not carry.
   */
  private record Shape(int[] at, List<String> missing) {}

  /** The columns the relay reads, in the order of its positions. */
  static final List<String> NEEDED =
      List.of(
          "id",
          "seq",
          "aggregate_type",
          "aggregate_id",
          "event_type",
          "payload",
          "headers",
          "attempts",
          "created_at",
          "retry_after",
          "processed_at",
          "dead_lettered_at");

  private final String schema;
  private final String table;
  private final Map<Integer, Shape> outboxRelations = new HashMap<>();
  private final List<OutboxMessage> current = new ArrayList<>();
  private final List<Unreadable> unreadable = new ArrayList<>();
  private int delayed;
  private PgOutput.@Nullable Begin open;

  OutboxInserts(OutboxTables tables) {
    this.schema = tables.schema();
    this.table = tables.eventsTable();
  }

  /**
   * Reads one message.
   *
   * @return the transaction that {@code message} commits, or null if it commits none
   * @throws IllegalStateException if the id of an insert into the outbox table cannot be read (any
   *     other column that cannot be read, or a needed column the stream does not carry, makes that
   *     insert {@link Unreadable})
   */
  @Nullable Transaction accept(PgOutput.Message message) {
    if (message instanceof PgOutput.Begin b) {
      open = b;
      current.clear();
      unreadable.clear();
      delayed = 0;
    } else if (message instanceof PgOutput.Relation r) {
      relation(r);
    } else if (message instanceof PgOutput.Insert i) {
      insert(i);
    } else if (message instanceof PgOutput.Commit c) {
      Transaction t =
          new Transaction(
              open == null ? 0 : open.xid(),
              c.endLsn(),
              c.commitMicros(),
              List.copyOf(current),
              delayed,
              List.copyOf(unreadable));
      current.clear();
      unreadable.clear();
      delayed = 0;
      open = null;
      return t;
    }
    return null;
  }

  /** Whether a transaction's Begin was read and its Commit not yet. */
  boolean inTransaction() {
    return open != null;
  }

  /** The Begin of the transaction being read (its Commit not read yet), or null. */
  PgOutput.@Nullable Begin open() {
    return open;
  }

  private void relation(PgOutput.Relation r) {
    // pgoutput sends an empty namespace for pg_catalog only; ours always has its name.
    if (!r.namespace().equals(schema) || !r.name().equals(table)) {
      outboxRelations.remove(r.oid());
      return;
    }
    // A column the stream does not carry (a publication's column list, PostgreSQL 15, or a table
    // altered to lack it) makes each insert unreadable, not the stream: the rows stay pending for
    // the polling relay, and the relay goes on confirming.
    int[] at = new int[NEEDED.size()];
    List<String> missing = new ArrayList<>();
    for (int i = 0; i < at.length; i++) {
      at[i] = r.columns().indexOf(NEEDED.get(i));
      if (at[i] < 0) {
        missing.add(NEEDED.get(i));
      }
    }
    outboxRelations.put(r.oid(), new Shape(at, List.copyOf(missing)));
  }

  private void insert(PgOutput.Insert insert) {
    Shape shape = outboxRelations.get(insert.relationOid());
    if (shape == null) {
      return; // another table of the publication
    }
    int[] at = shape.at();
    List<PgOutput.Value> v = insert.values();
    if (!shape.missing().isEmpty()) {
      unreadable.add(
          new Unreadable(
              at[0] < 0 ? null : UUID.fromString(required(v, at[0], "id")),
              "the stream does not carry column(s) "
                  + shape.missing()
                  + " of "
                  + schema
                  + "."
                  + table
                  + " (a publication column list, or the table altered)"));
      return;
    }
    if (text(v, at[9]) != null || text(v, at[10]) != null || text(v, at[11]) != null) {
      delayed++; // not due yet, or not pending: the polling relay's
      return;
    }
    try {
      String headers = required(v, at[6], "headers");
      current.add(
          OutboxMessage.builder()
              .id(UUID.fromString(required(v, at[0], "id")))
              .sequence(Long.parseLong(required(v, at[1], "seq")))
              .aggregateType(required(v, at[2], "aggregate_type"))
              .aggregateId(required(v, at[3], "aggregate_id"))
              .eventType(required(v, at[4], "event_type"))
              .payload(required(v, at[5], "payload"))
              .headers(RelayKernel.headers(headers))
              .createdAt(TimestamptzText.parse(required(v, at[8], "created_at")))
              .attempt(Integer.parseInt(required(v, at[7], "attempts")) + 1)
              .build());
    } catch (RuntimeException e) {
      // One row the relay cannot read must not stop the stream: it stays pending, and the polling
      // relay dead-letters it as unreadable. Only an unreadable id (a uuid primary key) is fatal.
      UUID id;
      try {
        id = UUID.fromString(required(v, at[0], "id"));
      } catch (RuntimeException idProblem) {
        throw new IllegalStateException(
            "cannot read an insert into " + schema + "." + table + ": " + e.getMessage(), e);
      }
      unreadable.add(new Unreadable(id, String.valueOf(e.getMessage())));
    }
  }

  private static @Nullable String text(List<PgOutput.Value> values, int at) {
    return values.get(at).text();
  }

  private static String required(List<PgOutput.Value> values, int at, String column) {
    PgOutput.Value value = values.get(at);
    if (value.kind() != 't' || value.text() == null) {
      throw new IllegalArgumentException(
          "column "
              + column
              + " must have a text value but was "
              + (value.kind() == 'u' ? "an unchanged TOAST value" : "null"));
    }
    return value.text();
  }
}
