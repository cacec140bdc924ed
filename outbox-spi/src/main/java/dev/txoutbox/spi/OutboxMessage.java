package dev.txoutbox.spi;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * One claimed outbox event, as a publisher sees it. Immutable and thread-safe.
 *
 * <p>The relay makes these; a plugin only reads them. A test makes one with {@link #builder()} (or
 * outbox-testing's {@code TestMessages.message()}, which fills in defaults), and a copy with a
 * field changed with {@link #toBuilder()}. There is no public constructor: a later version may add
 * a field, with a default in the builder, without breaking code that builds or reads messages.
 *
 * <p>Two messages are equal when every field is; {@link #toString()} shows every field, the payload
 * and the header values included.
 */
public final class OutboxMessage {

  private final UUID id;
  private final long sequence;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final String payload;
  private final Map<String, String> headers;
  private final Instant createdAt;
  private final int attempt;

  private OutboxMessage(Builder b) {
    this.id = required(b.id, "id");
    this.sequence = required(b.sequence, "sequence");
    this.aggregateType = required(b.aggregateType, "aggregateType");
    this.aggregateId = required(b.aggregateId, "aggregateId");
    this.eventType = required(b.eventType, "eventType");
    this.payload = required(b.payload, "payload");
    this.headers = b.headers;
    this.createdAt = required(b.createdAt, "createdAt");
    this.attempt = required(b.attempt, "attempt");
  }

  /** Starts a message with no field set but the headers (none). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding every field of this message, to make a copy with some changed. */
  public Builder toBuilder() {
    return new Builder()
        .id(id)
        .sequence(sequence)
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(eventType)
        .payload(payload)
        .headers(headers)
        .createdAt(createdAt)
        .attempt(attempt);
  }

  /** The event id, unique and stable across retries: consumers deduplicate on it. */
  public UUID id() {
    return id;
  }

  /**
   * The insert order of the event in its outbox table; within a batch, the events of one aggregate
   * come in ascending sequence, and in the relay's per-aggregate ordered modes they are
   * consecutive: no pending event of the aggregate lies between them.
   */
  public long sequence() {
    return sequence;
  }

  /** The kind of entity the event is about, such as {@code order}. */
  public String aggregateType() {
    return aggregateType;
  }

  /** The entity's id; events of one aggregate share it (a natural partition key). */
  public String aggregateId() {
    return aggregateId;
  }

  /** What happened, such as {@code order.created}. */
  public String eventType() {
    return eventType;
  }

  /** The event's JSON document, as PostgreSQL's {@code jsonb} renders it. */
  public String payload() {
    return payload;
  }

  /** The stored headers (trace context and user headers); unmodifiable. */
  public Map<String, String> headers() {
    return headers;
  }

  /** When the writing transaction started. */
  public Instant createdAt() {
    return createdAt;
  }

  /** Which publish attempt this is, starting at 1. */
  public int attempt() {
    return attempt;
  }

  /** The payload as UTF-8 bytes, the form brokers carry. */
  public byte[] payloadBytes() {
    return payload.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o == this
        || o instanceof OutboxMessage m
            && id.equals(m.id)
            && sequence == m.sequence
            && aggregateType.equals(m.aggregateType)
            && aggregateId.equals(m.aggregateId)
            && eventType.equals(m.eventType)
            && payload.equals(m.payload)
            && headers.equals(m.headers)
            && createdAt.equals(m.createdAt)
            && attempt == m.attempt;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        id, sequence, aggregateType, aggregateId, eventType, payload, headers, createdAt, attempt);
  }

  @Override
  public String toString() {
    return "OutboxMessage[id="
        + id
        + ", sequence="
        + sequence
        + ", aggregateType="
        + aggregateType
        + ", aggregateId="
        + aggregateId
        + ", eventType="
        + eventType
        + ", payload="
        + payload
        + ", headers="
        + headers
        + ", createdAt="
        + createdAt
        + ", attempt="
        + attempt
        + "]";
  }

  private static <T> T required(@Nullable T value, String field) {
    if (value == null) {
      throw new IllegalStateException(field + " must be set but was not");
    }
    return value;
  }

  /**
   * Makes an {@link OutboxMessage}. Every field must be set but the headers, which default to none.
   * Not thread-safe.
   */
  public static final class Builder {
    private @Nullable UUID id;
    private @Nullable Long sequence;
    private @Nullable String aggregateType;
    private @Nullable String aggregateId;
    private @Nullable String eventType;
    private @Nullable String payload;
    private Map<String, String> headers = Map.of();
    private @Nullable Instant createdAt;
    private @Nullable Integer attempt;

    private Builder() {}

    /**
     * Sets {@link OutboxMessage#id()}.
     *
     * @throws NullPointerException if {@code id} is null
     */
    public Builder id(UUID id) {
      this.id = Objects.requireNonNull(id, "id");
      return this;
    }

    /** Sets {@link OutboxMessage#sequence()}. */
    public Builder sequence(long sequence) {
      this.sequence = sequence;
      return this;
    }

    /**
     * Sets {@link OutboxMessage#aggregateType()}.
     *
     * @throws NullPointerException if {@code aggregateType} is null
     */
    public Builder aggregateType(String aggregateType) {
      this.aggregateType = Objects.requireNonNull(aggregateType, "aggregateType");
      return this;
    }

    /**
     * Sets {@link OutboxMessage#aggregateId()}.
     *
     * @throws NullPointerException if {@code aggregateId} is null
     */
    public Builder aggregateId(String aggregateId) {
      this.aggregateId = Objects.requireNonNull(aggregateId, "aggregateId");
      return this;
    }

    /**
     * Sets {@link OutboxMessage#eventType()}.
     *
     * @throws NullPointerException if {@code eventType} is null
     */
    public Builder eventType(String eventType) {
      this.eventType = Objects.requireNonNull(eventType, "eventType");
      return this;
    }

    /**
     * Sets {@link OutboxMessage#payload()}.
     *
     * @throws NullPointerException if {@code payload} is null
     */
    public Builder payload(String payload) {
      this.payload = Objects.requireNonNull(payload, "payload");
      return this;
    }

    /**
     * Sets {@link OutboxMessage#headers()}, replacing any set before; copied. Defaults to none.
     *
     * @throws NullPointerException if {@code headers} is null or holds a null name or value
     */
    public Builder headers(Map<String, String> headers) {
      this.headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
      return this;
    }

    /**
     * Sets {@link OutboxMessage#createdAt()}.
     *
     * @throws NullPointerException if {@code createdAt} is null
     */
    public Builder createdAt(Instant createdAt) {
      this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
      return this;
    }

    /** Sets {@link OutboxMessage#attempt()}. */
    public Builder attempt(int attempt) {
      this.attempt = attempt;
      return this;
    }

    /**
     * Makes the message; the builder may be used again.
     *
     * @throws IllegalStateException if a field other than the headers was not set; the message
     *     names it
     */
    public OutboxMessage build() {
      return new OutboxMessage(this);
    }
  }
}
