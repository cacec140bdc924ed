/**
 * Micrometer metrics of a relay and its outbox: {@link dev.txoutbox.metrics.OutboxMetrics}, given
 * to {@code OutboxRelay.builder().metrics(...)}.
 *
 * <p>Micrometer is an optional dependency of the core: only this package, the relay's internal
 * meters and the relay builders' {@code metrics(...)} methods refer to it, so an application
 * without {@code io.micrometer:micrometer-core} on its classpath never loads it.
 */
@NullMarked
package dev.txoutbox.metrics;

import org.jspecify.annotations.NullMarked;
