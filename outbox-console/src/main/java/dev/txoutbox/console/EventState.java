package dev.txoutbox.console;

import dev.txoutbox.schema.model.tables.OutboxEvents;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jooq.Condition;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** What an event is waiting for, as the Events page filters and shows it. */
enum EventState {
  /** Every event. */
  ALL,
  /** Not yet published and not given up on, due or not. */
  PENDING,
  /** Pending and its time has come: the relay publishes it at its next poll. */
  DUE,
  /** Pending and waiting for a time: a delayed event, or a retry's backoff. */
  DELAYED,
  /** Given up on: published only if an operator requeues it. */
  DEAD,
  /** Published (kept until retention removes it; none in delete mode). */
  PROCESSED;

  /** The name in URLs and JSON: {@code dead}. */
  String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The rows of this state in {@code t} at {@code now}. */
  Condition condition(OutboxEvents t, OffsetDateTime now) {
    Condition pending = t.PROCESSED_AT.isNull().and(t.DEAD_LETTERED_AT.isNull());
    return switch (this) {
      case ALL -> DSL.noCondition();
      case PENDING -> pending;
      case DUE -> pending.and(t.RETRY_AFTER.isNull().or(t.RETRY_AFTER.le(now)));
      case DELAYED -> pending.and(t.RETRY_AFTER.gt(now));
      case DEAD -> t.DEAD_LETTERED_AT.isNotNull();
      case PROCESSED -> t.PROCESSED_AT.isNotNull();
    };
  }

  /** The state of one row. */
  static EventState of(
      @Nullable OffsetDateTime processedAt,
      @Nullable OffsetDateTime deadLetteredAt,
      @Nullable OffsetDateTime retryAfter,
      OffsetDateTime now) {
    if (processedAt != null) {
      return PROCESSED;
    }
    if (deadLetteredAt != null) {
      return DEAD;
    }
    return retryAfter != null && retryAfter.isAfter(now) ? DELAYED : DUE;
  }

  /**
   * The state named {@code key}.
   *
   * @throws Refusal 400 if no state has that name
   */
  static EventState parse(String key) {
    for (EventState s : values()) {
      if (s.key().equals(key)) {
        return s;
      }
    }
    throw Refusal.badRequest(
        "state must be one of "
            + Arrays.stream(values()).map(EventState::key).collect(Collectors.joining(", "))
            + " but was "
            + Text.quoted(key));
  }
}
