/**
 * Micrometer metrics for a relay and its outbox: {@link dev.txoutbox.metrics.OutboxMetrics}.
 *
 * <p>Micrometer is an optional dependency of the core: only this package refers to it, so an
 * application without {@code io.micrometer:micrometer-core} on its classpath never loads it.
 */
package dev.txoutbox.metrics;
