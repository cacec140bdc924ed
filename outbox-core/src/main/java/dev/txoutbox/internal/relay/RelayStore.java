package dev.txoutbox.internal.relay;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.internal.OutboxConditions;
import dev.txoutbox.internal.json.Json;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.Record4;
import org.jooq.ResultQuery;
import org.jooq.Row4;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's statements: claim a batch, complete the published, record the failed. Public for
 * outbox-wal's facade ({@code internal.kernel.RelayKernel}), which hands on the checks and pieces
 * of statements the WAL relay shares.
 */
public final class RelayStore {

  private RelayStore() {}

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /**
   * Checks that the outbox table exists, so that a relay pointed at the wrong schema fails at start
   * rather than logging the same error every cycle. A database that cannot be reached now is only
   * logged: the relay waits it out like any other outage.
   *
   * @throws IllegalStateException if the table or its schema does not exist
   */
  static void requireTables(DSLContext dsl, OutboxTables tables) {
    try {
      dsl.selectOne().from(OUTBOX_EVENTS).limit(0).fetch();
    } catch (DataAccessException e) {
      String state = e.sqlState();
      if ("42P01".equals(state) || "3F000".equals(state)) {
        throw new IllegalStateException(
            "cannot start: table "
                + dsl.render(OUTBOX_EVENTS)
                + " does not exist. Create it with "
                + howToMigrate(tables, "migrate", "")
                + ", or give the relay the schema and table prefix that hold it",
            e);
      }
      log.warn("could not check the outbox table at start; carrying on: {}", e.toString());
    }
  }

  /**
   * The call and the CLI command that install what {@code method} of {@code OutboxSchema} installs
   * for {@code tables}, as an error message shows them: {@code OutboxSchema.migrate(..) or
   * `txoutbox migrate --schema ..`}, with the prefix when there is one.
   */
  private static String howToMigrate(OutboxTables tables, String method, String cliFlag) {
    String schema = tables.schema();
    String prefix = tables.tablePrefix();
    return "OutboxSchema."
        + method
        + (prefix.isEmpty()
            ? "(dataSource, \"" + schema + "\")"
            : "(dataSource, OutboxTables.of(\"" + schema + "\", \"" + prefix + "\"))")
        + " or `txoutbox migrate --schema "
        + schema
        + (prefix.isEmpty() ? "" : " --table-prefix " + prefix)
        + cliFlag
        + "`";
  }

  /**
   * Checks that the indexes the per-aggregate claim walks exist and are valid: without them every
   * claim would scan the table. A database that cannot be reached now is only logged.
   *
   * @throws IllegalStateException naming the missing index and how to install it
   */
  public static void requireOrderingIndexes(
      DSLContext dsl, Ordering ordering, OutboxTables tables) {
    List<String> needed =
        switch (ordering) {
          case NONE -> List.of();
          case PER_AGGREGATE_SKIP_DEAD_LETTERS -> List.of(tables.orderingIndex());
          case PER_AGGREGATE -> List.of(tables.orderingIndex(), tables.orderingDeadLetterIndex());
        };
    if (needed.isEmpty()) {
      return;
    }
    String table = dsl.render(OUTBOX_EVENTS);
    // pg_index and pg_class are catalogs, outside the generated model: named fields.
    Field<String> name = DSL.field(DSL.name("c", "relname"), String.class);
    List<String> valid;
    try {
      valid =
          dsl.select(name)
              .from(DSL.table(DSL.name("pg_catalog", "pg_index")).as("i"))
              .join(DSL.table(DSL.name("pg_catalog", "pg_class")).as("c"))
              .on(DSL.field(DSL.name("c", "oid")).eq(DSL.field(DSL.name("i", "indexrelid"))))
              .where(
                  DSL.field(DSL.name("i", "indrelid"))
                      .eq(DSL.function("to_regclass", Object.class, DSL.val(table))))
              .and(DSL.field(DSL.name("i", "indisvalid"), Boolean.class).isTrue())
              .fetch(name);
    } catch (DataAccessException e) {
      log.warn("could not check the ordering indexes at start; carrying on: {}", e.toString());
      return;
    }
    List<String> missing = needed.stream().filter(n -> !valid.contains(n)).toList();
    if (!missing.isEmpty()) {
      throw new IllegalStateException(
          "cannot start with ordering "
              + ordering
              + ": "
              + table
              + " lacks the index "
              + String.join(" and ", missing)
              + " that the ordered claim walks. Install it with "
              + howToMigrate(tables, "migrateOrderingIndex", " --with-ordering-index")
              + " (either also upgrades the index of an earlier version)");
    }
  }

  /**
   * The planner settings the ordered claim turns off for its transaction, so that its probes stay
   * index probes whatever the statistics say; for outbox-wal's ordering check, which probes the
   * same indexes.
   */
  public static List<String> planSettings() {
    return OrderedClaim.PLAN_SETTINGS;
  }

  /**
   * The statement that turns sequential scans off for the rest of the unordered cycle's
   * transaction, run before its statements by id (the completion, the deferral): each then finds
   * its rows through the primary key. Otherwise a plan cached while the outbox was small (pgjdbc
   * server-prepares a statement after 5 uses, and the server may keep one generic plan for it) or
   * an outbox without statistics can scan the whole table for every batch. The ordered claim's plan
   * settings include it.
   */
  static Query pinPlansById() {
    return DSL.select(seqScansOff());
  }

  /**
   * {@code set_config('enable_seqscan', 'off', true)}: what pins statements by id to the primary
   * key ({@link #pinPlansById()}), as a field, for outbox-wal's settings statement.
   */
  public static Field<String> seqScansOff() {
    return setLocal("enable_seqscan", "off");
  }

  /**
   * {@code set_config(name, value, true)}: a setting local to the transaction, as a field, so that
   * several go in one statement (jOOQ's {@code setLocal} sends one round trip each).
   */
  public static Field<String> setLocal(String name, String value) {
    return DSL.function(
        "set_config", String.class, DSL.inline(name), DSL.inline(value), DSL.inline(true));
  }

  /**
   * {@code ids} as one {@code uuid[]} bind value ({@link UuidArray}), for outbox-wal's statements
   * by id: the server gets an array, not text it parses again for every row it filters.
   */
  public static Field<UUID[]> uuids(UUID[] ids) {
    return UuidArray.of(ids);
  }

  /** The columns a publisher's message is made of; outbox-wal reads its backlog with them too. */
  public static final List<Field<?>> MESSAGE_COLUMNS =
      List.of(
          OUTBOX_EVENTS.ID,
          OUTBOX_EVENTS.SEQ,
          OUTBOX_EVENTS.AGGREGATE_TYPE,
          OUTBOX_EVENTS.AGGREGATE_ID,
          OUTBOX_EVENTS.EVENT_TYPE,
          OUTBOX_EVENTS.PAYLOAD,
          OUTBOX_EVENTS.HEADERS,
          OUTBOX_EVENTS.CREATED_AT,
          OUTBOX_EVENTS.ATTEMPTS);

  /**
   * Locks up to {@code limit} due pending events, skipping rows other relays hold: first those
   * whose wait (delay or backoff) is over, earliest first, then ready ones in insert order; the
   * batch is in seq order.
   *
   * @throws RuntimeException if any claimed row cannot be read; see {@link #claimRows} and {@link
   *     #read} for reading them one by one
   */
  static Claimed<OutboxMessage> claim(DSLContext tx, int limit, OffsetDateTime now) {
    List<OutboxMessage> batch =
        new ArrayList<>(
            claimQuery(tx, MESSAGE_COLUMNS, limit, now)
                .fetch(r -> toMessage(r, MESSAGE_POSITIONS)));
    batch.sort(Comparator.comparingLong(OutboxMessage::sequence));
    return new Claimed<>(batch, batch.size() == limit);
  }

  /**
   * Locks the same rows as {@link #claim} but reads only their ids and aggregates, which cannot
   * fail.
   */
  static Claimed<ClaimedRow> claimRows(DSLContext tx, int limit, OffsetDateTime now) {
    List<ClaimedRow> rows =
        claimQuery(
                tx,
                List.of(OUTBOX_EVENTS.ID, OUTBOX_EVENTS.AGGREGATE_TYPE, OUTBOX_EVENTS.AGGREGATE_ID),
                limit,
                now)
            .fetch(
                r ->
                    new ClaimedRow(
                        (UUID) r.get(0), new AggregateKey((String) r.get(1), (String) r.get(2))));
    return new Claimed<>(rows, rows.size() == limit);
  }

  /**
   * The claim, one statement: the waiting rows whose time has come, read in time order from {@code
   * outbox_events_waiting_idx}, then as many ready rows as the batch has room for, in seq order
   * from {@code outbox_events_ready_idx}. An idle poll is one probe of each index, however many
   * events wait for a later time; with one index on seq for both, the claim read every waiting row
   * ahead of the first due one.
   */
  static ResultQuery<Record> claimQuery(
      DSLContext tx, List<Field<?>> columns, int limit, OffsetDateTime now) {
    CommonTableExpression<Record> due =
        DSL.name("due")
            .as(
                DSL.select(columns)
                    .from(OUTBOX_EVENTS)
                    .where(OutboxConditions.WAITING)
                    .and(OUTBOX_EVENTS.RETRY_AFTER.le(now))
                    .orderBy(OUTBOX_EVENTS.RETRY_AFTER)
                    .limit(limit)
                    .forUpdate()
                    .skipLocked());
    Field<Integer> room = DSL.inline(limit).minus(DSL.field(DSL.selectCount().from(due)));
    CommonTableExpression<Record> ready =
        DSL.name("ready")
            .as(
                DSL.select(columns)
                    .from(OUTBOX_EVENTS)
                    .where(OutboxConditions.READY)
                    .orderBy(OUTBOX_EVENTS.SEQ)
                    .limit(room)
                    .forUpdate()
                    .skipLocked());
    return tx.with(due).with(ready).selectFrom(due).unionAll(DSL.selectFrom(ready));
  }

  /**
   * Reads one claimed row.
   *
   * @throws RuntimeException if the row cannot be read or decoded
   */
  static OutboxMessage read(DSLContext tx, UUID id) {
    return tx.select(MESSAGE_COLUMNS)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchSingle(r -> toMessage(r, MESSAGE_POSITIONS));
  }

  /** The message in {@code r}, a record that selects just the {@link #MESSAGE_COLUMNS}. */
  public static OutboxMessage toMessage(Record r) {
    return toMessage(r, MESSAGE_POSITIONS);
  }

  /** Where the {@code MESSAGE_COLUMNS} are in a record that selects just them. */
  static final int[] MESSAGE_POSITIONS = {0, 1, 2, 3, 4, 5, 6, 7, 8};

  /**
   * The message in {@code r}, whose {@code MESSAGE_COLUMNS} are at {@code at}, in their order. By
   * position: looking fields up by name costs more than the rest of the claim's Java work.
   */
  static OutboxMessage toMessage(Record r, int[] at) {
    return OutboxMessage.builder()
        .id((UUID) r.get(at[0]))
        .sequence((Long) r.get(at[1]))
        .aggregateType((String) r.get(at[2]))
        .aggregateId((String) r.get(at[3]))
        .eventType((String) r.get(at[4]))
        .payload(((JSONB) r.get(at[5])).data())
        .headers(headers(((JSONB) r.get(at[6])).data()))
        .createdAt(((OffsetDateTime) r.get(at[7])).toInstant())
        .attempt((Integer) r.get(at[8]) + 1)
        .build();
  }

  /**
   * The headers in their JSON text; most events have none, and {@code {}} needs no parser. Public
   * for the WAL relay, which reads the same text from the stream.
   *
   * @throws IllegalArgumentException if {@code json} is not a JSON object
   */
  public static Map<String, String> headers(String json) {
    if (json.equals("{}")) {
      return Map.of();
    }
    Map<String, String> plain = plainHeaders(json);
    return plain != null ? plain : Json.readStringMap(json);
  }

  /**
   * The headers of the usual form, as PostgreSQL renders a {@code jsonb} object of strings: {@code
   * {"traceparent": "00-…"}}, every name and value printable ASCII without escapes. Read without
   * the general parser, which took a seventh of the relay's Java time for one {@code traceparent}
   * per event. Returns null for anything else (escapes, other characters or values, duplicate
   * names, other whitespace), for {@link Json#readStringMap} to read or refuse, so that both give
   * the same map for what this reads.
   */
  static @Nullable Map<String, String> plainHeaders(String json) {
    int last = json.length() - 1;
    if (last < 1 || json.charAt(0) != '{' || json.charAt(last) != '}') {
      return null;
    }
    Map.Entry<String, String> first = null;
    List<Map.Entry<String, String>> more = null;
    int i = 1;
    while (true) {
      i = skipSpaces(json, i);
      int nameEnd = plainStringEnd(json, i);
      if (nameEnd < 0) {
        return null;
      }
      String name = json.substring(i + 1, nameEnd);
      i = skipSpaces(json, nameEnd + 1);
      if (json.charAt(i) != ':') {
        return null;
      }
      i = skipSpaces(json, i + 1);
      int valueEnd = plainStringEnd(json, i);
      if (valueEnd < 0) {
        return null;
      }
      Map.Entry<String, String> entry = Map.entry(name, json.substring(i + 1, valueEnd));
      if (first == null) {
        first = entry;
      } else {
        if (more == null) {
          more = new ArrayList<>();
          more.add(first);
        }
        more.add(entry);
      }
      i = skipSpaces(json, valueEnd + 1);
      if (i == last) {
        break; // the closing brace
      }
      if (json.charAt(i) != ',') {
        return null;
      }
      i++;
    }
    if (first == null) {
      return null; // not reached: the loop reads a pair before it ends
    }
    if (more == null) {
      return Map.of(first.getKey(), first.getValue());
    }
    // In the document's order, as the general parser keeps them (Map.ofEntries would not).
    Map<String, String> ordered = new LinkedHashMap<>(more.size() * 2);
    for (Map.Entry<String, String> e : more) {
      if (ordered.put(e.getKey(), e.getValue()) != null) {
        return null; // a duplicate name: the general parser keeps the last, as before
      }
    }
    return Collections.unmodifiableMap(ordered);
  }

  /** The first index at or after {@code i} that is not a space; never beyond the last character. */
  private static int skipSpaces(String json, int i) {
    int last = json.length() - 1;
    while (i < last && json.charAt(i) == ' ') {
      i++;
    }
    return i;
  }

  /**
   * Where the string that opens at {@code i} closes, if it is quoted printable ASCII without a
   * backslash; else -1.
   */
  private static int plainStringEnd(String json, int i) {
    if (json.charAt(i) != '"') {
      return -1;
    }
    for (int j = i + 1; j < json.length(); j++) {
      char c = json.charAt(j);
      if (c == '"') {
        return j;
      }
      if (c < 0x20 || c > 0x7e || c == '\\') {
        return -1;
      }
    }
    return -1;
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
        .setNull(OUTBOX_EVENTS.PROCESSED_AT) // the WAL relay's claim marks the rows it claims
        .where(OUTBOX_EVENTS.ID.eq(DSL.any(UuidArray.of(ids))))
        .execute();
  }

  /** Marks or deletes the published events, in one statement. */
  static void complete(DSLContext tx, List<UUID> ids, CompletionMode mode, OffsetDateTime now) {
    if (ids.isEmpty()) {
      return;
    }
    completion(tx, ids.toArray(UUID[]::new), mode, now).execute();
  }

  /** The statement that marks or deletes the events {@code ids}. */
  static Query completion(DSLContext tx, UUID[] ids, CompletionMode mode, OffsetDateTime now) {
    Condition published = OUTBOX_EVENTS.ID.eq(DSL.any(UuidArray.of(ids)));
    return switch (mode) {
      case MARK_PROCESSED ->
          tx.update(OUTBOX_EVENTS).set(OUTBOX_EVENTS.PROCESSED_AT, now).where(published);
      case DELETE -> tx.deleteFrom(OUTBOX_EVENTS).where(published);
    };
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
        .setNull(OUTBOX_EVENTS.PROCESSED_AT) // the WAL relay's claim marks the rows it claims
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
  record Failure(
      UUID id,
      @Nullable OffsetDateTime retryAfter,
      String error,
      @Nullable OffsetDateTime deadLetteredAt) {}
}
