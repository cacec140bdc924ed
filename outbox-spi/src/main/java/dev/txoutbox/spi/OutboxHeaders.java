package dev.txoutbox.spi;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Names of the headers every publisher puts on a broker message, next to the event's stored
 * headers, and the one place that builds them ({@link #of(OutboxMessage)}). The same names and
 * values on every broker, so one consumer library can read them all. Values are strings. Stateless
 * and thread-safe.
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

  /**
   * When the writing transaction started, ISO-8601 in UTC with exactly six fraction digits
   * (PostgreSQL's microsecond precision), such as {@code 2026-11-30T06:50:38.123000Z}; see {@link
   * #formatCreatedAt(Instant)}.
   */
  public static final String CREATED_AT = "outbox-created-at";

  private static final Set<String> RESERVED =
      Set.of(EVENT_ID, EVENT_TYPE, AGGREGATE_TYPE, AGGREGATE_ID, CREATED_AT);

  private static final DateTimeFormatter CREATED_AT_FORMAT =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private OutboxHeaders() {}

  /**
   * The headers a publisher puts on the broker message for {@code message}: the five identity
   * headers ({@link #EVENT_ID}, {@link #EVENT_TYPE}, {@link #AGGREGATE_TYPE}, {@link
   * #AGGREGATE_ID}, {@link #CREATED_AT}) in that order, then the stored headers in the stored map's
   * iteration order. A stored header with a reserved name is left out, so it never shadows the
   * identity headers consumers deduplicate on.
   *
   * @return an unmodifiable map that iterates in the order described above
   * @throws NullPointerException if {@code message} is null
   */
  public static Map<String, String> of(OutboxMessage message) {
    Objects.requireNonNull(message, "message");
    Map<String, String> headers = new LinkedHashMap<>(message.headers().size() * 2 + 8);
    headers.put(EVENT_ID, message.id().toString());
    headers.put(EVENT_TYPE, message.eventType());
    headers.put(AGGREGATE_TYPE, message.aggregateType());
    headers.put(AGGREGATE_ID, message.aggregateId());
    headers.put(CREATED_AT, formatCreatedAt(message.createdAt()));
    message
        .headers()
        .forEach(
            (name, value) -> {
              if (!isReserved(name)) {
                headers.put(name, value);
              }
            });
    return Collections.unmodifiableMap(headers);
  }

  /**
   * Whether {@code name} is one of the five identity header names, which a stored header cannot
   * take.
   *
   * @throws NullPointerException if {@code name} is null
   */
  public static boolean isReserved(String name) {
    return RESERVED.contains(Objects.requireNonNull(name, "name"));
  }

  /**
   * The {@link #CREATED_AT} form of {@code createdAt}: ISO-8601 in UTC with exactly six fraction
   * digits, such as {@code 2026-11-30T06:50:38.123000Z}. Digits below a microsecond are dropped
   * (PostgreSQL stores none). {@link Instant#parse} reads the result back.
   *
   * @throws NullPointerException if {@code createdAt} is null
   */
  public static String formatCreatedAt(Instant createdAt) {
    return CREATED_AT_FORMAT.format(Objects.requireNonNull(createdAt, "createdAt"));
  }
}
