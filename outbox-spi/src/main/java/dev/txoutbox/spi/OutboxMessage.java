package dev.txoutbox.spi;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One claimed outbox event, as a publisher sees it. Immutable and thread-safe.
 *
 * @param id the event id, unique and stable across retries: consumers deduplicate on it
 * @param sequence the insert order of the event in its outbox table; within a batch, the events of
 *     one aggregate come in ascending sequence, and in the relay's per-aggregate ordered modes they
 *     are consecutive: no pending event of the aggregate lies between them
 * @param aggregateType the kind of entity the event is about, such as {@code order}
 * @param aggregateId the entity's id; events of one aggregate share it (a natural partition key)
 * @param eventType what happened, such as {@code order.created}
 * @param payload the event's JSON document, as PostgreSQL's {@code jsonb} renders it
 * @param headers the stored headers (trace context and user headers); unmodifiable
 * @param createdAt when the writing transaction started
 * @param attempt which publish attempt this is, starting at 1
 */
public record OutboxMessage(
    UUID id,
    long sequence,
    String aggregateType,
    String aggregateId,
    String eventType,
    String payload,
    Map<String, String> headers,
    Instant createdAt,
    int attempt) {

  /**
   * @throws NullPointerException if any reference argument is null
   */
  public OutboxMessage {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(payload, "payload");
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /** The payload as UTF-8 bytes, the form brokers carry. */
  public byte[] payloadBytes() {
    return payload.getBytes(StandardCharsets.UTF_8);
  }
}
