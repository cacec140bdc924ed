package dev.txoutbox.spi;

/**
 * Names of the headers every publisher puts on a broker message, next to the event's stored
 * headers. The same names on every broker, so one consumer library can read them all. Values are
 * strings.
 */
public final class OutboxHeaders {

  /** The event id (a UUID); consumers deduplicate on it. */
  public static final String EVENT_ID = "outbox-event-id";

  /** The event type, such as {@code order.created}. */
  public static final String EVENT_TYPE = "outbox-event-type";

  /** The aggregate type, such as {@code order}. */
  public static final String AGGREGATE_TYPE = "outbox-aggregate-type";

  /** The aggregate id. */
  public static final String AGGREGATE_ID = "outbox-aggregate-id";

  /** When the writing transaction started, ISO-8601 in UTC ({@code 2026-11-30T06:50:38.123Z}). */
  public static final String CREATED_AT = "outbox-created-at";

  private OutboxHeaders() {}
}
