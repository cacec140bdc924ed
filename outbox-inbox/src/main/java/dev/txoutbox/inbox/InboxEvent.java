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
 * if (inbox.firstTime(tx, "shipping", event.eventId())) { ... }
 * }</pre>
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
  private final Map<String, String> headers;

  private InboxEvent(UUID eventId, Map<String, String> headers) {
    this.eventId = eventId;
    this.headers = headers;
  }

  /**
   * The event described by a broker message's headers.
   *
   * @param headers every header of the message, name to value
   * @throws NullPointerException if {@code headers} is null
   * @throws IllegalArgumentException if {@code headers} has no {@value OutboxHeaders#EVENT_ID} or
   *     its value is not a UUID in canonical form (36 characters: hex digits in groups of
   *     8-4-4-4-12 separated by hyphens; upper and lower case read as the same id, as RFC 9562
   *     says, and every txoutbox publisher writes lower case): the message was not published by a
   *     txoutbox relay
   */
  public static InboxEvent from(Map<String, String> headers) {
    Objects.requireNonNull(headers, "headers");
    String id = headers.get(OutboxHeaders.EVENT_ID);
    if (id == null) {
      throw new IllegalArgumentException(
          "headers must carry " + OutboxHeaders.EVENT_ID + " but it was missing");
    }
    return new InboxEvent(eventId(id), Collections.unmodifiableMap(new LinkedHashMap<>(headers)));
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

  /** The event id, the key to deduplicate on. */
  public UUID eventId() {
    return eventId;
  }

  /** The event type ({@value OutboxHeaders#EVENT_TYPE}), such as {@code order.created}. */
  public Optional<String> eventType() {
    return header(OutboxHeaders.EVENT_TYPE);
  }

  /** The aggregate type ({@value OutboxHeaders#AGGREGATE_TYPE}), such as {@code order}. */
  public Optional<String> aggregateType() {
    return header(OutboxHeaders.AGGREGATE_TYPE);
  }

  /** The aggregate id ({@value OutboxHeaders#AGGREGATE_ID}). */
  public Optional<String> aggregateId() {
    return header(OutboxHeaders.AGGREGATE_ID);
  }

  /**
   * When the writing transaction started ({@value OutboxHeaders#CREATED_AT}).
   *
   * @throws IllegalArgumentException if the header is present but not an ISO-8601 instant
   */
  public Optional<Instant> createdAt() {
    return header(OutboxHeaders.CREATED_AT)
        .map(
            value -> {
              try {
                return Instant.parse(value);
              } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(
                    OutboxHeaders.CREATED_AT
                        + " must be an ISO-8601 instant but was '"
                        + abbreviate(value)
                        + "'",
                    e);
              }
            });
  }

  /** The W3C {@value #TRACEPARENT} of the writing trace, when the event was written in one. */
  public Optional<String> traceparent() {
    return header(TRACEPARENT);
  }

  /** The W3C {@value #TRACESTATE}, when the writing trace had one. */
  public Optional<String> tracestate() {
    return header(TRACESTATE);
  }

  /** Every header of the message, the identity headers included; unmodifiable. */
  public Map<String, String> headers() {
    return headers;
  }

  /** The header {@code name}, if the message has it. */
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.get(Objects.requireNonNull(name, "name")));
  }

  @Override
  public String toString() {
    return "InboxEvent[" + eventId + ", " + eventType().orElse("?") + "]";
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "…";
  }
}
