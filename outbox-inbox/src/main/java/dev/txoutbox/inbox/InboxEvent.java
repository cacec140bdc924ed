package dev.txoutbox.inbox;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.Printable;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * What a consumer knows about a delivered outbox event from its broker message's headers: the
 * {@link OutboxHeaders} every txoutbox publisher writes (event id, event type, aggregate type and
 * id, created-at) and the event's stored headers, such as the W3C trace context.
 *
 * <p>Each broker plugin turns its message into the header map this class reads, as the exact
 * inverse of what it publishes: {@code KafkaHeaders.read(record)} in publisher-kafka, {@code
 * SqsHeaders.read(message.messageAttributes())} in publisher-sqs and {@code
 * RabbitHeaders.read(properties)} in publisher-rabbit. So a Kafka consumer needs no AWS SDK.
 *
 * <pre>{@code
 * InboxEvent event = InboxEvent.from(KafkaHeaders.read(record));
 * if ("order.created".equals(event.eventType())) {
 *   inbox.process(tx, "shipping", event, work -> createShipment(work, event.aggregateId()));
 * }
 * }</pre>
 *
 * <p>The identity values are plain values, never null: {@code from} refuses a message that lacks
 * one. Only what a message may lack ({@link #traceparent()}, {@link #tracestate()}, {@link
 * #header(String)}) comes as an {@code Optional}.
 *
 * <p>This class is thread-safe: it is immutable.
 */
public final class InboxEvent {

  /** The W3C trace context header an event's stored headers carry when it was traced. */
  public static final String TRACEPARENT = "traceparent";

  /** The W3C trace state header that may accompany {@link #TRACEPARENT}. */
  public static final String TRACESTATE = "tracestate";

  /** A UUID in the canonical form the event id header must have. */
  private static final String CANONICAL_EXAMPLE = "0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10";

  private final UUID eventId;
  private final String eventType;
  private final String aggregateType;
  private final String aggregateId;
  private final Instant createdAt;
  private final Map<String, String> headers;

  private InboxEvent(Map<String, String> headers) {
    this.eventId = eventId(required(headers, OutboxHeaders.EVENT_ID));
    this.eventType = required(headers, OutboxHeaders.EVENT_TYPE);
    this.aggregateType = required(headers, OutboxHeaders.AGGREGATE_TYPE);
    this.aggregateId = required(headers, OutboxHeaders.AGGREGATE_ID);
    this.createdAt = createdAt(required(headers, OutboxHeaders.CREATED_AT));
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /**
   * The event described by a broker message's headers. Every txoutbox publisher writes the five
   * identity headers ({@link OutboxHeaders}), so each is required and read here once: a message
   * without one, or with one that does not parse, is refused as a whole.
   *
   * @param headers every header of the message, name to value
   * @throws NullPointerException if {@code headers} is null
   * @throws IllegalArgumentException if {@code headers} lacks one of the identity headers {@value
   *     OutboxHeaders#EVENT_ID}, {@value OutboxHeaders#EVENT_TYPE}, {@value
   *     OutboxHeaders#AGGREGATE_TYPE}, {@value OutboxHeaders#AGGREGATE_ID} and {@value
   *     OutboxHeaders#CREATED_AT}; if the event id is not a UUID in canonical form (36 characters:
   *     hex digits in groups of 8-4-4-4-12 separated by hyphens; upper and lower case read as the
   *     same id, as RFC 9562 says, and every txoutbox publisher writes lower case); or if the
   *     created-at is not an ISO-8601 instant: the message was not published by a txoutbox relay
   */
  public static InboxEvent from(Map<String, String> headers) {
    return new InboxEvent(Objects.requireNonNull(headers, "headers"));
  }

  /** The event id, the key to deduplicate on. */
  public UUID eventId() {
    return eventId;
  }

  /**
   * The event type ({@value OutboxHeaders#EVENT_TYPE}), such as {@code order.created}; never null,
   * so {@code "order.created".equals(event.eventType())} is the test for a type.
   */
  public String eventType() {
    return eventType;
  }

  /**
   * The aggregate type ({@value OutboxHeaders#AGGREGATE_TYPE}), such as {@code order}; never null.
   */
  public String aggregateType() {
    return aggregateType;
  }

  /** The aggregate id ({@value OutboxHeaders#AGGREGATE_ID}); never null. */
  public String aggregateId() {
    return aggregateId;
  }

  /** When the writing transaction started ({@value OutboxHeaders#CREATED_AT}); never null. */
  public Instant createdAt() {
    return createdAt;
  }

  /**
   * The W3C {@value #TRACEPARENT} of the writing trace, or empty when the event was written outside
   * a trace.
   */
  public Optional<String> traceparent() {
    return header(TRACEPARENT);
  }

  /** The W3C {@value #TRACESTATE}, or empty when the writing trace had none. */
  public Optional<String> tracestate() {
    return header(TRACESTATE);
  }

  /** Every header of the message, the identity headers included; unmodifiable. */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * The header {@code name}, or empty if the message does not have it. An {@code Optional}: compare
   * its value ({@code event.header("tenant").filter("acme"::equals).isPresent()}), never the {@code
   * Optional} itself with a string.
   */
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(Objects.requireNonNull(name, "name")));
  }

  @Override
  public String toString() {
    return "InboxEvent[" + eventId + ", " + Printable.of(eventType) + "]";
  }

  private static String required(Map<String, String> headers, String name) {
    String value = headers.get(name);
    if (value == null) {
      throw new IllegalArgumentException("headers must carry " + name + " but it was missing");
    }
    return value;
  }

  private static Instant createdAt(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          OutboxHeaders.CREATED_AT
              + " must be an ISO-8601 instant but was '"
              + Printable.of(abbreviate(text))
              + "'",
          e);
    }
  }

  /**
   * The id in {@code text}, which must be a UUID's canonical form: 36 characters, hex digits in
   * groups of 8-4-4-4-12 separated by hyphens, in either case. {@link UUID#fromString} alone is
   * lenient: it reads {@code 1-1-1-1-1}, a sign, or non-ASCII digits as an id.
   */
  private static UUID eventId(String text) {
    if (!isCanonicalUuid(text)) {
      throw new IllegalArgumentException(
          OutboxHeaders.EVENT_ID
              + " must be a UUID in canonical form (8-4-4-4-12 hex digits, such as "
              + CANONICAL_EXAMPLE
              + ") but was '"
              + Printable.of(abbreviate(text))
              + "'");
    }
    return UUID.fromString(text);
  }

  private static boolean isCanonicalUuid(String text) {
    if (text.length() != CANONICAL_EXAMPLE.length()) {
      return false;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean valid =
          CANONICAL_EXAMPLE.charAt(i) == '-'
              ? c == '-'
              : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      if (!valid) {
        return false;
      }
    }
    return true;
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "…";
  }
}
