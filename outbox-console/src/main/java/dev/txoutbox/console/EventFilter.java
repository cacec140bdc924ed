package dev.txoutbox.console;

import dev.txoutbox.schema.model.tables.OutboxEvents;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The Events page's filter, read from its query string with every limit checked: state, aggregate
 * type and id, event type (exact), event id, a time range on {@code created_at}, text in the last
 * error (case-insensitive), the page's cursor and size. Immutable.
 */
record EventFilter(
    EventState state,
    @Nullable String aggregateType,
    @Nullable String aggregateId,
    @Nullable String eventType,
    @Nullable UUID eventId,
    @Nullable Instant from,
    @Nullable Instant to,
    @Nullable String error,
    @Nullable UUID after,
    int limit) {

  /** Events per page unless {@code limit} says otherwise: 50. */
  static final int DEFAULT_LIMIT = 50;

  /** Most events per page: 200. */
  static final int MAX_LIMIT = 200;

  /** Longest error text searched for: 200 characters. */
  static final int MAX_ERROR_TEXT = 200;

  static final Set<String> PARAMETERS =
      Set.of(
          "state",
          "aggregateType",
          "aggregateId",
          "eventType",
          "eventId",
          "from",
          "to",
          "error",
          "after",
          "limit");

  /**
   * The filter in {@code query}.
   *
   * @throws Refusal 400 naming the parameter and its limit
   */
  static EventFilter parse(String query) {
    Params p = Params.parse(query, PARAMETERS);
    String state = p.text("state", 20);
    Instant from = p.instant("from");
    Instant to = p.instant("to");
    if (from != null && to != null && from.isAfter(to)) {
      throw Refusal.badRequest("from must not be after to but was " + from + " > " + to);
    }
    return new EventFilter(
        state == null ? EventState.ALL : EventState.parse(state),
        p.text("aggregateType", Params.MAX_TEXT),
        p.text("aggregateId", Params.MAX_TEXT),
        p.text("eventType", Params.MAX_TEXT),
        p.uuid("eventId"),
        from,
        to,
        p.text("error", MAX_ERROR_TEXT),
        p.uuid("after"),
        (int) p.number("limit", 1, MAX_LIMIT, DEFAULT_LIMIT));
  }

  /** The rows of {@code t} this filter keeps at {@code now}, the cursor aside. */
  Condition condition(OutboxEvents t, OffsetDateTime now) {
    Condition c = state.condition(t, now);
    if (aggregateType != null) {
      c = c.and(t.AGGREGATE_TYPE.eq(aggregateType));
    }
    if (aggregateId != null) {
      c = c.and(t.AGGREGATE_ID.eq(aggregateId));
    }
    if (eventType != null) {
      c = c.and(t.EVENT_TYPE.eq(eventType));
    }
    if (from != null) {
      c = c.and(t.CREATED_AT.ge(from.atOffset(ZoneOffset.UTC)));
    }
    if (to != null) {
      c = c.and(t.CREATED_AT.le(to.atOffset(ZoneOffset.UTC)));
    }
    if (error != null) {
      String literal = error.replace("!", "!!").replace("%", "!%").replace("_", "!_");
      c = c.and(t.LAST_ERROR.likeIgnoreCase(DSL.val("%" + literal + "%"), '!'));
    }
    return c;
  }
}
