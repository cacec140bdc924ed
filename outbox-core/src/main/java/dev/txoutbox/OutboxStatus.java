package dev.txoutbox;

import java.time.Duration;
import java.util.Optional;

/**
 * A snapshot of an outbox's backlog, for dashboards and alert probes. Immutable.
 *
 * @param pending events not yet published (due now or waiting for a retry or a delay)
 * @param dueNow pending events whose time has come
 * @param deadLetters events given up on
 * @param oldestPendingAge the age of the oldest pending event, empty when none is pending
 * @param processedLastMinute events marked processed in the last minute (0 in {@link
 *     CompletionMode#DELETE} mode)
 */
public record OutboxStatus(
    long pending,
    long dueNow,
    long deadLetters,
    Optional<Duration> oldestPendingAge,
    long processedLastMinute) {}
