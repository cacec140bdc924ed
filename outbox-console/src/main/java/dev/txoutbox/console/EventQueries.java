package dev.txoutbox.console;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.schema.model.tables.OutboxEvents;
import dev.txoutbox.spi.SecretMasking;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.Result;
import org.jooq.Select;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The Events page's queries, each along an index with a bound on the rows it reads. The list walks
 * the primary key newest first (ids are UUIDv7, so newest id is newest event) in windows of at most
 * {@value #WINDOW} rows: a page holds the filter's matches among the next {@value #WINDOW} events
 * after the cursor, so a filter that matches rarely costs one window per page, never a scan of the
 * table; the page's cursor then moves past the window. Thread-safe.
 */
final class EventQueries {

  /** Most rows one page of the list reads: 10,000. */
  static final int WINDOW = 10_000;

  /** Longest last error shown in the list: 300 characters (the detail shows it whole). */
  static final int LIST_ERROR_LENGTH = 300;

  /** Longest payload shown in the detail: 1,000,000 characters. */
  static final int MAX_PAYLOAD = 1_000_000;

  /** The window's rows, as the derived table {@code w}. */
  private static final OutboxEvents W = OUTBOX_EVENTS.as("w");

  private static final Field<?>[] LIST_COLUMNS = {
    OUTBOX_EVENTS.ID,
    OUTBOX_EVENTS.SEQ,
    OUTBOX_EVENTS.AGGREGATE_TYPE,
    OUTBOX_EVENTS.AGGREGATE_ID,
    OUTBOX_EVENTS.EVENT_TYPE,
    OUTBOX_EVENTS.ATTEMPTS,
    OUTBOX_EVENTS.CREATED_AT,
    OUTBOX_EVENTS.RETRY_AFTER,
    OUTBOX_EVENTS.PROCESSED_AT,
    OUTBOX_EVENTS.DEAD_LETTERED_AT,
    OUTBOX_EVENTS.LAST_ERROR
  };

  private final DSLContext dsl;
  private final OutboxTables tables;

  /**
   * @param dsl rendering the generated model onto {@code tables}
   */
  EventQueries(DSLContext dsl, OutboxTables tables) {
    this.dsl = dsl;
    this.tables = tables;
  }

  /** One page of events and where the next starts. */
  record Page(List<Map<String, Object>> events, @Nullable UUID next, int searched) {}

  Page list(EventFilter filter, OffsetDateTime now) {
    if (filter.eventId() != null) {
      List<Map<String, Object>> one =
          dsl.fetch(listQuery(filter, now)).map(r -> listRow(r, OUTBOX_EVENTS, now));
      return new Page(one, null, 1);
    }
    Result<Record> rows = dsl.fetch(listQuery(filter, now));
    List<Map<String, Object>> events = new ArrayList<>();
    for (int i = 0; i < Math.min(rows.size(), filter.limit()); i++) {
      events.add(listRow(rows.get(i), W, now));
    }
    if (rows.size() > filter.limit()) {
      return new Page(events, rows.get(filter.limit() - 1).get(W.ID), WINDOW);
    }
    // Every match of the window is on this page: go on after the window, if it was full.
    Record2<UUID, Integer> window = dsl.fetchOne(windowQuery(filter));
    if (window == null) {
      return new Page(events, null, 0);
    }
    return new Page(events, window.value2() == WINDOW ? window.value1() : null, window.value2());
  }

  /**
   * The page's rows, one more than asked for: the filter's matches among the {@value #WINDOW}
   * events after the cursor, or the one event asked for by id.
   */
  Select<Record> listQuery(EventFilter filter, OffsetDateTime now) {
    if (filter.eventId() != null) {
      return DSL.select(LIST_COLUMNS)
          .from(OUTBOX_EVENTS)
          .where(OUTBOX_EVENTS.ID.eq(filter.eventId()))
          .and(filter.condition(OUTBOX_EVENTS, now));
    }
    return DSL.select(W.fields(LIST_COLUMNS))
        .from(
            DSL.select(LIST_COLUMNS)
                .from(OUTBOX_EVENTS)
                .where(keyset(filter))
                .orderBy(OUTBOX_EVENTS.ID.desc())
                .limit(WINDOW)
                .asTable(W.getName()))
        .where(filter.condition(W, now))
        .orderBy(W.ID.desc())
        .limit(filter.limit() + 1);
  }

  /** The last id of the window after the cursor, and how many events the window holds. */
  Select<Record2<UUID, Integer>> windowQuery(EventFilter filter) {
    return DSL.select(W.ID, DSL.count().over().as("examined"))
        .from(
            DSL.select(OUTBOX_EVENTS.ID)
                .from(OUTBOX_EVENTS)
                .where(keyset(filter))
                .orderBy(OUTBOX_EVENTS.ID.desc())
                .limit(WINDOW)
                .asTable(W.getName()))
        .orderBy(W.ID)
        .limit(1);
  }

  private static Condition keyset(EventFilter filter) {
    return filter.after() == null ? DSL.noCondition() : OUTBOX_EVENTS.ID.lt(filter.after());
  }

  private static Map<String, Object> listRow(Record r, OutboxEvents t, OffsetDateTime now) {
    Map<String, Object> row = state(r, t, now);
    String error = Text.masked(r.get(t.LAST_ERROR));
    row.put("lastError", error == null ? null : Text.cut(error, LIST_ERROR_LENGTH));
    return row;
  }

  /** The columns every view of an event shows, the last error aside. */
  private static Map<String, Object> state(Record r, OutboxEvents t, OffsetDateTime now) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", r.get(t.ID));
    row.put("seq", r.get(t.SEQ));
    row.put(
        "state",
        EventState.of(r.get(t.PROCESSED_AT), r.get(t.DEAD_LETTERED_AT), r.get(t.RETRY_AFTER), now)
            .key());
    row.put("aggregateType", r.get(t.AGGREGATE_TYPE));
    row.put("aggregateId", r.get(t.AGGREGATE_ID));
    row.put("eventType", r.get(t.EVENT_TYPE));
    row.put("attempts", r.get(t.ATTEMPTS));
    row.put("createdAt", instant(r.get(t.CREATED_AT)));
    row.put("retryAfter", instant(r.get(t.RETRY_AFTER)));
    row.put("processedAt", instant(r.get(t.PROCESSED_AT)));
    row.put("deadLetteredAt", instant(r.get(t.DEAD_LETTERED_AT)));
    return row;
  }

  private static @Nullable Object instant(@Nullable OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }

  /**
   * Everything about one event: its columns, the payload as stored (up to {@value #MAX_PAYLOAD}
   * characters), the headers (secret ones masked), the whole last error (masked), and in ordered
   * mode the earlier event of its aggregate that holds it back.
   *
   * @throws Refusal 404 if there is no such event
   */
  Map<String, Object> detail(UUID id, OffsetDateTime now) {
    Field<String> payload =
        DSL.field(
            "left({0}::text, {1})",
            String.class, OUTBOX_EVENTS.PAYLOAD, DSL.inline(MAX_PAYLOAD + 1));
    Field<String> rawHeaders =
        DSL.field(
            "case when jsonb_typeof({0}) = 'object' then null else {0}::text end",
            String.class, OUTBOX_EVENTS.HEADERS);
    Record r =
        dsl.select(LIST_COLUMNS)
            .select(payload, rawHeaders)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(id))
            .fetchOne();
    if (r == null) {
      throw Refusal.notFound("no event " + id + " in outbox " + tables);
    }
    Map<String, Object> event = state(r, OUTBOX_EVENTS, now);
    String text = r.get(payload);
    event.put("payloadTruncated", text != null && text.length() > MAX_PAYLOAD);
    event.put("payload", text == null ? null : Text.cut(text, MAX_PAYLOAD));
    event.put("headers", headers(id));
    event.put("rawHeaders", r.get(rawHeaders));
    event.put("lastError", Text.masked(r.get(OUTBOX_EVENTS.LAST_ERROR)));
    event.put("heldBackBy", heldBackBy(r, now));
    return event;
  }

  /** The headers of a row whose headers are a JSON object; each value masked by its name. */
  private Map<String, Object> headers(UUID id) {
    Field<String> key = DSL.field(DSL.name("h", "key"), String.class);
    Field<String> value = DSL.field(DSL.name("h", "value"), String.class);
    Map<String, Object> headers = new LinkedHashMap<>();
    dsl.select(key, value)
        .from(OUTBOX_EVENTS)
        .crossJoin(DSL.table("jsonb_each_text({0})", OUTBOX_EVENTS.HEADERS).as("h"))
        .where(OUTBOX_EVENTS.ID.eq(id))
        .and(DSL.condition("jsonb_typeof({0}) = 'object'", OUTBOX_EVENTS.HEADERS))
        .orderBy(key)
        .forEach(h -> headers.put(h.value1(), SecretMasking.maskSetting(h.value1(), h.value2())));
    return headers;
  }

  /**
   * In ordered mode (its indexes installed), the first earlier event of the same aggregate that is
   * a dead letter or still pending, which the ordered relay publishes first; otherwise null.
   */
  private @Nullable Map<String, Object> heldBackBy(Record event, OffsetDateTime now) {
    if (event.get(OUTBOX_EVENTS.PROCESSED_AT) != null || !orderingIndexesInstalled()) {
      return null;
    }
    Condition earlier =
        OUTBOX_EVENTS
            .AGGREGATE_TYPE
            .eq(event.get(OUTBOX_EVENTS.AGGREGATE_TYPE))
            .and(OUTBOX_EVENTS.AGGREGATE_ID.eq(event.get(OUTBOX_EVENTS.AGGREGATE_ID)))
            .and(OUTBOX_EVENTS.SEQ.lt(event.get(OUTBOX_EVENTS.SEQ)));
    Condition pending =
        OUTBOX_EVENTS.PROCESSED_AT.isNull().and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull());
    Record dead = first(earlier.and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull()));
    Record waiting = first(earlier.and(pending));
    Record holder =
        dead == null
            ? waiting
            : waiting == null || dead.get(OUTBOX_EVENTS.SEQ) < waiting.get(OUTBOX_EVENTS.SEQ)
                ? dead
                : waiting;
    return holder == null ? null : listRow(holder, OUTBOX_EVENTS, now);
  }

  private @Nullable Record first(Condition where) {
    return dsl.select(LIST_COLUMNS)
        .from(OUTBOX_EVENTS)
        .where(where)
        .orderBy(OUTBOX_EVENTS.SEQ)
        .limit(1)
        .fetchOne();
  }

  private boolean orderingIndexesInstalled() {
    return dsl.select(
            DSL.field(
                "to_regclass({0}) is not null and to_regclass({1}) is not null",
                Boolean.class,
                DSL.val(qualified(tables.orderingIndex())),
                DSL.val(qualified(tables.orderingDeadLetterIndex()))))
        .fetchSingle()
        .value1();
  }

  private String qualified(String name) {
    return DSL.name(tables.schema(), name).toString();
  }
}
