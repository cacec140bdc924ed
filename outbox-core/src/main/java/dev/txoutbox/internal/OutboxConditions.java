package dev.txoutbox.internal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import java.time.OffsetDateTime;
import org.jooq.Condition;

/** The row states of {@code outbox_events}, shared by the relay and the admin operations. */
public final class OutboxConditions {

  /** Not yet published and not given up on: a row of {@link #READY} or of {@link #WAITING}. */
  public static final Condition PENDING =
      OUTBOX_EVENTS.PROCESSED_AT.isNull().and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull());

  /**
   * Pending and waiting for no time. Identical to the predicate of the partial index {@code
   * outbox_events_ready_idx} (on seq), so queries on it can use that index: keep them the same.
   */
  public static final Condition READY = PENDING.and(OUTBOX_EVENTS.RETRY_AFTER.isNull());

  /**
   * Pending and waiting for a time (a delay, or a retry's backoff), which may have come. Identical
   * to the predicate of the partial index {@code outbox_events_waiting_idx} (on retry_after): keep
   * them the same.
   */
  public static final Condition WAITING = PENDING.and(OUTBOX_EVENTS.RETRY_AFTER.isNotNull());

  /** A dead letter. */
  public static final Condition DEAD_LETTER = OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull();

  private OutboxConditions() {}

  /** Pending and its time has come (no backoff or delay pending at {@code now}). */
  public static Condition due(OffsetDateTime now) {
    return PENDING.and(timeHasCome(now));
  }

  /** No backoff or delay pending at {@code now}. */
  public static Condition timeHasCome(OffsetDateTime now) {
    return OUTBOX_EVENTS.RETRY_AFTER.isNull().or(OUTBOX_EVENTS.RETRY_AFTER.le(now));
  }
}
