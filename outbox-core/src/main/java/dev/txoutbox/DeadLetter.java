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
 * @param id the event id
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param eventType the event type
 * @param payload the JSON payload, or null if the server cannot send it
 * @param headers the stored headers; copied, unmodifiable; empty when they cannot be read as a JSON
 *     object of strings, see {@code rawHeaders}
 * @param rawHeaders null when {@code headers} holds the stored headers; otherwise the stored
 *     headers' JSON text as PostgreSQL writes it, such as {@code []} or {@code null}
 * @param attempts failed publish attempts
 * @param createdAt when it was written
 * @param deadLetteredAt when it became a dead letter
 * @param lastError the last failure's reason, or null if none was recorded (a row an operator
 *     dead-lettered by hand)
 */
public record DeadLetter(
    UUID id,
    String aggregateType,
    String aggregateId,
    String eventType,
    @Nullable String payload,
    Map<String, String> headers,
    @Nullable String rawHeaders,
    int attempts,
    Instant createdAt,
    Instant deadLetteredAt,
    @Nullable String lastError) {

  /**
   * @throws NullPointerException if any component but {@code payload}, {@code rawHeaders} and
   *     {@code lastError} is null, or a header name or value is null; the message names the
   *     component
   * @throws IllegalArgumentException if {@code attempts} is negative, or {@code rawHeaders} is
   *     given with {@code headers} not empty
   */
  public DeadLetter {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(deadLetteredAt, "deadLetteredAt");
    headers.forEach(
        (name, value) -> {
          Objects.requireNonNull(name, "headers must not hold a null name");
          Objects.requireNonNull(value, () -> "headers['" + name + "'] must not be null");
        });
    headers = Map.copyOf(headers);
    if (attempts < 0) {
      throw new IllegalArgumentException("attempts must not be negative but was " + attempts);
    }
    if (rawHeaders != null && !headers.isEmpty()) {
      throw new IllegalArgumentException(
          "headers must be empty when rawHeaders is given but held " + headers.size());
    }
  }

  /**
   * A dead letter whose headers were read; the same as the canonical constructor with null {@code
   * rawHeaders}.
   *
   * @throws NullPointerException if any argument but {@code payload} and {@code lastError} is null,
   *     or a header name or value is null; the message names the argument
   * @throws IllegalArgumentException if {@code attempts} is negative
   */
  public DeadLetter(
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      Map<String, String> headers,
      int attempts,
      Instant createdAt,
      Instant deadLetteredAt,
      String lastError) {
    this(
        id,
        aggregateType,
        aggregateId,
        eventType,
        payload,
        headers,
        null,
        attempts,
        createdAt,
        deadLetteredAt,
        lastError);
  }
}
