package dev.txoutbox;

import java.time.Instant;

/**
 * Dead letters sharing an event type and an error fingerprint. Immutable.
 *
 * @param eventType the event type
 * @param errorFingerprint the last error with variable parts replaced by {@code ?}
 * @param count how many dead letters
 * @param newest when the most recent of them became a dead letter
 * @param sampleError one full last error of the group
 */
public record DeadLetterGroup(
    String eventType, String errorFingerprint, long count, Instant newest, String sampleError) {}
