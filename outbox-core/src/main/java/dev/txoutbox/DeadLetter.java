package dev.txoutbox;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * An event that will not be published unless an operator requeues it. Immutable and thread-safe:
 * the headers are copied.
 *
 * <p>A row another tool wrote may hold what the relay cannot read; the relay dead-letters it with a
 * last error starting {@code unreadable row: }. Such a row is still listed, with what could not be
 * read shown as such and nothing altered: headers that are not a JSON object of strings nested at
 * most {@code 500} deep come as empty {@link #headers()} and their stored JSON text in {@link
 * #rawHeaders()}; a payload the server cannot send (one rendered beyond PostgreSQL's 1 GB limit)
 * comes as a null {@link #payload()}. Headers the server cannot send have no text to show: they
 * come as empty headers and null raw headers, and only the last error tells.
 *
 * <p>{@link OutboxAdmin#deadLetters(String, int)} makes these; a test makes one with {@link
 * #builder()}. There is no public constructor: a later version may add a field, with a default in
 * the builder, without breaking code that builds or reads dead letters. Two dead letters are equal
 * when every field is; {@link #toString()} shows every field, the payload and the header values
 * included.
 */
public final class DeadLetter {

  private final UUID id;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final @Nullable String payload;
  private final Map<String, String> headers;
  private final @Nullable String rawHeaders;
  private final int attempts;
  private final Instant createdAt;
  private final Instant deadLetteredAt;
  private final @Nullable String lastError;

  private DeadLetter(Builder b) {
    this.id = required(b.id, "id");
    this.aggregateType = required(b.aggregateType, "aggregateType");
    this.aggregateId = required(b.aggregateId, "aggregateId");
    this.eventType = required(b.eventType, "eventType");
    this.payload = b.payload;
    this.headers = b.headers;
    this.rawHeaders = b.rawHeaders;
    this.attempts = required(b.attempts, "attempts");
    this.createdAt = required(b.createdAt, "createdAt");
    this.deadLetteredAt = required(b.deadLetteredAt, "deadLetteredAt");
    this.lastError = b.lastError;
    if (rawHeaders != null && !headers.isEmpty()) {
      throw new IllegalArgumentException(
          "headers must be empty when rawHeaders is given but held " + headers.size());
    }
  }

  /**
   * Starts a dead letter with no field set but the optional ones: no headers, and a null payload,
   * raw headers and last error.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The event id. */
  public UUID id() {
    return id;
  }

  /** The aggregate type. */
  public String aggregateType() {
    return aggregateType;
  }

  /** The aggregate id. */
  public String aggregateId() {
    return aggregateId;
  }

  /** The event type. */
  public String eventType() {
    return eventType;
  }

  /** The JSON payload, or null if the server cannot send it. */
  public @Nullable String payload() {
    return payload;
  }

  /**
   * The stored headers; unmodifiable; empty when they cannot be read as a JSON object of strings,
   * see {@link #rawHeaders()}.
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * Null when {@link #headers()} holds the stored headers; otherwise the stored headers' JSON text
   * as PostgreSQL writes it, such as {@code []} or {@code null}.
   */
  public @Nullable String rawHeaders() {
    return rawHeaders;
  }

  /** Failed publish attempts. */
  public int attempts() {
    return attempts;
  }

  /** When it was written. */
  public Instant createdAt() {
    return createdAt;
  }

  /** When it became a dead letter. */
  public Instant deadLetteredAt() {
    return deadLetteredAt;
  }

  /**
   * The last failure's reason, or null if none was recorded (a row an operator dead-lettered by
   * hand).
   */
  public @Nullable String lastError() {
    return lastError;
  }

  @Override
  public boolean equals(@Nullable Object o) {
    return o == this
        || o instanceof DeadLetter d
            && id.equals(d.id)
            && aggregateType.equals(d.aggregateType)
            && aggregateId.equals(d.aggregateId)
            && eventType.equals(d.eventType)
            && Objects.equals(payload, d.payload)
            && headers.equals(d.headers)
            && Objects.equals(rawHeaders, d.rawHeaders)
            && attempts == d.attempts
            && createdAt.equals(d.createdAt)
            && deadLetteredAt.equals(d.deadLetteredAt)
            && Objects.equals(lastError, d.lastError);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        id,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        rawHeaders,
        attempts,
        createdAt,
        deadLetteredAt,
        lastError);
  }

  @Override
  public String toString() {
    return "DeadLetter[id="
        + id
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
        + ", rawHeaders="
        + rawHeaders
        + ", attempts="
        + attempts
        + ", createdAt="
        + createdAt
        + ", deadLetteredAt="
        + deadLetteredAt
        + ", lastError="
        + lastError
        + "]";
  }

  private static <T> T required(@Nullable T value, String field) {
    if (value == null) {
      throw new IllegalStateException(field + " must be set but was not");
    }
    return value;
  }

  /**
   * Makes a {@link DeadLetter}. The id, types, attempts and both times must be set; the headers
   * default to none, the payload, raw headers and last error to null. Not thread-safe.
   */
  public static final class Builder {
    private @Nullable UUID id;
    private @Nullable String aggregateType;
    private @Nullable String aggregateId;
    private @Nullable String eventType;
    private @Nullable String payload;
    private Map<String, String> headers = Map.of();
    private @Nullable String rawHeaders;
    private @Nullable Integer attempts;
    private @Nullable Instant createdAt;
    private @Nullable Instant deadLetteredAt;
    private @Nullable String lastError;

    private Builder() {}

    /**
     * Sets {@link DeadLetter#id()}.
     *
     * @throws NullPointerException if {@code id} is null
     */
    public Builder id(UUID id) {
      this.id = Objects.requireNonNull(id, "id");
      return this;
    }

    /**
     * Sets {@link DeadLetter#aggregateType()}.
     *
     * @throws NullPointerException if {@code aggregateType} is null
     */
    public Builder aggregateType(String aggregateType) {
      this.aggregateType = Objects.requireNonNull(aggregateType, "aggregateType");
      return this;
    }

    /**
     * Sets {@link DeadLetter#aggregateId()}.
     *
     * @throws NullPointerException if {@code aggregateId} is null
     */
    public Builder aggregateId(String aggregateId) {
      this.aggregateId = Objects.requireNonNull(aggregateId, "aggregateId");
      return this;
    }

    /**
     * Sets {@link DeadLetter#eventType()}.
     *
     * @throws NullPointerException if {@code eventType} is null
     */
    public Builder eventType(String eventType) {
      this.eventType = Objects.requireNonNull(eventType, "eventType");
      return this;
    }

    /** Sets {@link DeadLetter#payload()}, null if the server cannot send it. Defaults to null. */
    public Builder payload(@Nullable String payload) {
      this.payload = payload;
      return this;
    }

    /**
     * Sets {@link DeadLetter#headers()}, replacing any set before; copied. Defaults to none.
     *
     * @throws NullPointerException if {@code headers} is null or holds a null name or value; the
     *     message names the header
     */
    public Builder headers(Map<String, String> headers) {
      Objects.requireNonNull(headers, "headers");
      headers.forEach(
          (name, value) -> {
            Objects.requireNonNull(name, "headers must not hold a null name");
            Objects.requireNonNull(value, () -> "headers['" + name + "'] must not be null");
          });
      this.headers = Map.copyOf(headers);
      return this;
    }

    /**
     * Sets {@link DeadLetter#rawHeaders()}: the stored headers' JSON text when they cannot be read,
     * given with empty headers. Defaults to null.
     */
    public Builder rawHeaders(@Nullable String rawHeaders) {
      this.rawHeaders = rawHeaders;
      return this;
    }

    /**
     * Sets {@link DeadLetter#attempts()}.
     *
     * @throws IllegalArgumentException if {@code attempts} is negative
     */
    public Builder attempts(int attempts) {
      if (attempts < 0) {
        throw new IllegalArgumentException("attempts must not be negative but was " + attempts);
      }
      this.attempts = attempts;
      return this;
    }

    /**
     * Sets {@link DeadLetter#createdAt()}.
     *
     * @throws NullPointerException if {@code createdAt} is null
     */
    public Builder createdAt(Instant createdAt) {
      this.createdAt = Objects.requireNonNull(createdAt, "createdAt");
      return this;
    }

    /**
     * Sets {@link DeadLetter#deadLetteredAt()}.
     *
     * @throws NullPointerException if {@code deadLetteredAt} is null
     */
    public Builder deadLetteredAt(Instant deadLetteredAt) {
      this.deadLetteredAt = Objects.requireNonNull(deadLetteredAt, "deadLetteredAt");
      return this;
    }

    /** Sets {@link DeadLetter#lastError()}, null if none was recorded. Defaults to null. */
    public Builder lastError(@Nullable String lastError) {
      this.lastError = lastError;
      return this;
    }

    /**
     * Makes the dead letter; the builder may be used again.
     *
     * @throws IllegalStateException if the id, a type, the attempts or a time was not set; the
     *     message names it
     * @throws IllegalArgumentException if raw headers are given with headers that are not empty
     */
    public DeadLetter build() {
      return new DeadLetter(this);
    }
  }
}
