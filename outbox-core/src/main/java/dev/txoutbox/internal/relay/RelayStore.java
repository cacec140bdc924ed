package dev.txoutbox.internal.relay;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.internal.OutboxConditions;
import dev.txoutbox.internal.json.Json;
import dev.txoutbox.schema.model.tables.OutboxEvents;
import dev.txoutbox.spi.OutboxMessage;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record4;
import org.jooq.Record9;
import org.jooq.Row4;
import org.jooq.SelectJoinStep;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay's statements: claim a batch, complete the published, record the failed. */
final class RelayStore {

  private RelayStore() {}

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /**
   * Checks that the outbox table exists, so that a relay pointed at the wrong schema fails at start
   * rather than logging the same error every cycle. A database that cannot be reached now is only
   * logged: the relay waits it out like any other outage.
   *
   * @throws IllegalStateException if the table or its schema does not exist
   */
  static void requireTables(DSLContext dsl) {
    try {
      dsl.selectOne().from(OUTBOX_EVENTS).limit(0).fetch();
    } catch (DataAccessException e) {
      String state = e.sqlState();
      if ("42P01".equals(state) || "3F000".equals(state)) {
        String table = dsl.render(OUTBOX_EVENTS);
        String schema = table.contains(".") ? table.substring(0, table.indexOf('.')) : "public";
        throw new IllegalStateException(
            "cannot start: table "
                + table
                + " does not exist. Create it with OutboxSchema.migrate(dataSource, "
                + schema
                + ") or `txoutbox migrate --schema "
                + schema.replace("\"", "")
                + "`, or give the relay the schema that holds it",
            e);
      }
      log.warn("could not check the outbox table at start; carrying on: {}", e.toString());
    }
  }

  /**
   * Locks up to {@code limit} due pending events in insert order, skipping rows other relays hold.
   * In the per-aggregate orderings only an aggregate's first unprocessed event can be claimed.
   *
   * @throws RuntimeException if any claimed row cannot be read; see {@link #claimIds} and {@link
   *     #read} for reading them one by one
   */
  static List<OutboxMessage> claim(
      DSLContext tx, int limit, OffsetDateTime now, Ordering ordering) {
    return selectMessages(tx)
        .where(OutboxConditions.due(now))
        .and(headOfItsAggregate(ordering))
        .orderBy(OUTBOX_EVENTS.SEQ)
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .fetch(RelayStore::toMessage);
  }

  /** Locks the same rows as {@link #claim} but reads only their ids, which cannot fail. */
  static List<UUID> claimIds(DSLContext tx, int limit, OffsetDateTime now, Ordering ordering) {
    return tx.select(OUTBOX_EVENTS.ID)
        .from(OUTBOX_EVENTS)
        .where(OutboxConditions.due(now))
        .and(headOfItsAggregate(ordering))
        .orderBy(OUTBOX_EVENTS.SEQ)
        .limit(limit)
        .forUpdate()
        .skipLocked()
        .fetch(OUTBOX_EVENTS.ID);
  }

  /**
   * Reads one claimed row.
   *
   * @throws RuntimeException if the row cannot be read or decoded
   */
  static OutboxMessage read(DSLContext tx, UUID id) {
    return selectMessages(tx).where(OUTBOX_EVENTS.ID.eq(id)).fetchSingle(RelayStore::toMessage);
  }

  private static SelectJoinStep<
          Record9<UUID, Long, String, String, String, JSONB, JSONB, OffsetDateTime, Integer>>
      selectMessages(DSLContext tx) {
    return tx.select(
            OUTBOX_EVENTS.ID,
            OUTBOX_EVENTS.SEQ,
            OUTBOX_EVENTS.AGGREGATE_TYPE,
            OUTBOX_EVENTS.AGGREGATE_ID,
            OUTBOX_EVENTS.EVENT_TYPE,
            OUTBOX_EVENTS.PAYLOAD,
            OUTBOX_EVENTS.HEADERS,
            OUTBOX_EVENTS.CREATED_AT,
            OUTBOX_EVENTS.ATTEMPTS)
        .from(OUTBOX_EVENTS);
  }

  private static OutboxMessage toMessage(
      Record9<UUID, Long, String, String, String, JSONB, JSONB, OffsetDateTime, Integer> r) {
    return new OutboxMessage(
        r.value1(),
        r.value2(),
        r.value3(),
        r.value4(),
        r.value5(),
        r.value6().data(),
        Json.readStringMap(r.value7().data()),
        r.value8().toInstant(),
        r.value9() + 1);
  }

  /**
   * Postpones events without counting an attempt: the broker was unavailable to them while it
   * answered others of their batch.
   */
  static void defer(DSLContext tx, List<UUID> ids, OffsetDateTime until) {
    if (ids.isEmpty()) {
      return;
    }
    tx.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.RETRY_AFTER, until)
        .where(OUTBOX_EVENTS.ID.eq(DSL.any(UuidArray.of(ids))))
        .execute();
  }

  /**
   * No earlier unprocessed event of the same aggregate exists (a dead letter counts unless the
   * ordering skips them). Rows a concurrent relay has claimed are still unprocessed for this
   * statement, so their successors wait for that relay's commit.
   */
  private static Condition headOfItsAggregate(Ordering ordering) {
    if (ordering == Ordering.NONE) {
      return DSL.noCondition();
    }
    OutboxEvents earlier = OUTBOX_EVENTS.as("earlier");
    Condition blocking =
        earlier
            .AGGREGATE_TYPE
            .eq(OUTBOX_EVENTS.AGGREGATE_TYPE)
            .and(earlier.AGGREGATE_ID.eq(OUTBOX_EVENTS.AGGREGATE_ID))
            .and(earlier.SEQ.lt(OUTBOX_EVENTS.SEQ))
            .and(earlier.PROCESSED_AT.isNull());
    if (ordering == Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS) {
      blocking = blocking.and(earlier.DEAD_LETTERED_AT.isNull());
    }
    return DSL.notExists(DSL.selectOne().from(earlier).where(blocking));
  }

  /** Marks or deletes the published events, in one statement. */
  static void complete(DSLContext tx, List<UUID> ids, CompletionMode mode, OffsetDateTime now) {
    if (ids.isEmpty()) {
      return;
    }
    Condition published = OUTBOX_EVENTS.ID.eq(DSL.any(UuidArray.of(ids)));
    switch (mode) {
      case MARK_PROCESSED ->
          tx.update(OUTBOX_EVENTS).set(OUTBOX_EVENTS.PROCESSED_AT, now).where(published).execute();
      case DELETE -> tx.deleteFrom(OUTBOX_EVENTS).where(published).execute();
    }
  }

  /**
   * Records failed attempts in one statement: attempts + 1, the last error, and either the time of
   * the next attempt or the dead-letter time.
   */
  static void fail(DSLContext tx, List<Failure> failures) {
    if (failures.isEmpty()) {
      return;
    }
    @SuppressWarnings("unchecked")
    Row4<UUID, OffsetDateTime, String, OffsetDateTime>[] rows = new Row4[failures.size()];
    for (int i = 0; i < rows.length; i++) {
      Failure f = failures.get(i);
      rows[i] =
          DSL.row(
              DSL.cast(DSL.val(f.id()), SQLDataType.UUID),
              DSL.cast(DSL.val(f.retryAfter()), SQLDataType.TIMESTAMPWITHTIMEZONE),
              DSL.cast(DSL.val(f.error()), SQLDataType.CLOB),
              DSL.cast(DSL.val(f.deadLetteredAt()), SQLDataType.TIMESTAMPWITHTIMEZONE));
    }
    Table<Record4<UUID, OffsetDateTime, String, OffsetDateTime>> failed =
        DSL.values(rows).as("failed", "id", "retry_after", "last_error", "dead_lettered_at");
    Field<UUID> id = failed.field("id", UUID.class);
    tx.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.ATTEMPTS, OUTBOX_EVENTS.ATTEMPTS.plus(1))
        .set(OUTBOX_EVENTS.RETRY_AFTER, failed.field("retry_after", OffsetDateTime.class))
        .set(OUTBOX_EVENTS.LAST_ERROR, failed.field("last_error", String.class))
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, failed.field("dead_lettered_at", OffsetDateTime.class))
        .from(failed)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .execute();
  }

  /**
   * One failed attempt to record.
   *
   * @param retryAfter when to try again, or null for a dead letter
   * @param deadLetteredAt when it became a dead letter, or null for a retry
   */
  record Failure(UUID id, OffsetDateTime retryAfter, String error, OffsetDateTime deadLetteredAt) {}
}
