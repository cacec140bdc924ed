package dev.txoutbox;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * An event that will not be published unless an operator requeues it. Immutable and thread-safe:
 * the headers are copied.
 *
 * @param id the event id
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param eventType the event type
 * @param payload the JSON payload
 * @param headers the stored headers; copied, unmodifiable
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
    String payload,
    Map<String, String> headers,
    int attempts,
    Instant createdAt,
    Instant deadLetteredAt,
    String lastError) {

  /**
   * @throws NullPointerException if any component but {@code lastError} is null, or a header name
   *     or value is null; the message names the component
   * @throws IllegalArgumentException if {@code attempts} is negative
   */
  public DeadLetter {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(payload, "payload");
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
  }
}
