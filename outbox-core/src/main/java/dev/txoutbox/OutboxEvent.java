package dev.txoutbox;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An event to record in the outbox. Immutable and thread-safe; build one with {@link
 * #builder(String, String, String)}.
 *
 * <p>The writer checks every field against the column limits before it touches the database (see
 * {@link Outbox#record(org.jooq.DSLContext, OutboxEvent)}); this record only rejects nulls.
 *
 * @param aggregateType the kind of entity, such as {@code order}; 1 to 255 characters (code
 *     points), not all whitespace
 * @param aggregateId the entity's id; 1 to 255 characters (code points), not all whitespace. Events
 *     of one aggregate share a partition key, message group or routing key downstream
 * @param eventType what happened, such as {@code order.created}; 1 to 255 characters (code points),
 *     not all whitespace
 * @param payload the event's JSON document: JSON text ({@link String}), UTF-8 JSON bytes ({@code
 *     byte[]}), {@link org.jooq.JSONB}, or any object the writer's {@link PayloadSerializer} turns
 *     into JSON; at most the writer's {@code maxPayloadBytes} (1 MiB by default)
 * @param headers headers carried to the broker message, string to string, at most 64; names 1 to
 *     255 bytes and values at most 8,192 bytes of UTF-8; unmodifiable
 * @param notBefore the earliest time to publish (delayed delivery), or {@code null} for at once;
 *     within PostgreSQL's timestamptz range (4714-11-24 BC to 294276-12-31 AD), stored to the
 *     microsecond, rounded up
 */
public record OutboxEvent(
    String aggregateType,
    String aggregateId,
    String eventType,
    Object payload,
    Map<String, String> headers,
    @Nullable Instant notBefore) {

  /**
   * @throws NullPointerException if a required field is null
   */
  public OutboxEvent {
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(headers, "headers");
    // Not Map.copyOf: it would reject a null value with a message that names no header; the
    // writer reports it by name instead.
    headers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /** An event with a payload and no headers, published at once. */
  public static OutboxEvent of(
      String aggregateType, String aggregateId, String eventType, Object payload) {
    return new OutboxEvent(aggregateType, aggregateId, eventType, payload, Map.of(), null);
  }

  /** Starts an event about {@code aggregateType}/{@code aggregateId}. */
  public static Builder builder(String aggregateType, String aggregateId, String eventType) {
    return new Builder(aggregateType, aggregateId, eventType);
  }

  /** Builds an {@link OutboxEvent}. Not thread-safe. */
  public static final class Builder {
    private final String aggregateType;
    private final String aggregateId;
    private final String eventType;
    private @Nullable Object payload;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private @Nullable Instant notBefore;

    private Builder(String aggregateType, String aggregateId, String eventType) {
      this.aggregateType = aggregateType;
      this.aggregateId = aggregateId;
      this.eventType = eventType;
    }

    /** The payload: JSON text, UTF-8 JSON bytes, {@code JSONB} or an object to serialise. */
    public Builder payload(Object payload) {
      this.payload = payload;
      return this;
    }

    /** Adds one header; a later call with the same name replaces the value. */
    public Builder header(String name, String value) {
      headers.put(name, value);
      return this;
    }

    /** Adds all {@code headers}. */
    public Builder headers(Map<String, String> headers) {
      this.headers.putAll(headers);
      return this;
    }

    /** Publishes no earlier than {@code notBefore}. */
    public Builder notBefore(Instant notBefore) {
      this.notBefore = notBefore;
      return this;
    }

    /**
     * Makes the event.
     *
     * @throws NullPointerException if the payload or a type or id is null
     */
    public OutboxEvent build() {
      return new OutboxEvent(
          aggregateType,
          aggregateId,
          eventType,
          Objects.requireNonNull(payload, "payload"),
          headers,
          notBefore);
    }
  }
}
