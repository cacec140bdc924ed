/**
 * Internal: the meters a relay registers when it is given {@link
 * dev.txoutbox.metrics.OutboxMetrics}. Not an API. Like {@code dev.txoutbox.metrics}, only loaded
 * when Micrometer is used.
 */
@NullMarked
package dev.txoutbox.internal.metrics;

import org.jspecify.annotations.NullMarked;
