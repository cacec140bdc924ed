/**
 * Trace context across the outbox with OpenTelemetry: {@link
 * dev.txoutbox.tracing.OpenTelemetryHeadersProvider} stores the writer's W3C trace context in each
 * event's headers, every publisher copies them onto the broker message, and {@link
 * dev.txoutbox.tracing.TraceHeaders} lets a consumer continue the trace.
 *
 * <p>The OpenTelemetry API is an optional dependency of the core: only this package refers to it,
 * so an application without {@code io.opentelemetry:opentelemetry-api} never loads it.
 */
@NullMarked
package dev.txoutbox.tracing;

import org.jspecify.annotations.NullMarked;
