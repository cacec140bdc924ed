package dev.txoutbox;

import java.time.Duration;
import java.util.Optional;

/**
 * A snapshot of an outbox's backlog, for dashboards and alert probes. Immutable.
 *
 * @param pending events not yet published (due now or waiting for a retry or a delay)
 * @param dueNow pending events whose time has come
 * @param deadLetters events given up on
 * @param oldestPendingAge how long the longest-waiting due event has waited to be published: since
 *     it was written, or since its delay or retry backoff ended. Events still waiting for their
 *     time do not count, so events delayed days ahead do not make a healthy relay look behind.
 *     Empty when no event is due
 * @param processedLastMinute events marked processed in the last minute (0 in {@link
 *     CompletionMode#DELETE} mode)
 */
public record OutboxStatus(
    long pending,
    long dueNow,
    long deadLetters,
    Optional<Duration> oldestPendingAge,
    long processedLastMinute) {}
