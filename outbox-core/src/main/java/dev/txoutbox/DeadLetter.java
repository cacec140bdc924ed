package dev.txoutbox;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * An event that will not be published unless an operator requeues it. Immutable.
 *
 * @param id the event id
 * @param aggregateType the aggregate type
 * @param aggregateId the aggregate id
 * @param eventType the event type
 * @param payload the JSON payload
 * @param headers the stored headers
 * @param attempts failed publish attempts
 * @param createdAt when it was written
 * @param deadLetteredAt when it became a dead letter
 * @param lastError the last failure's reason
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
    String lastError) {}
