/**
 * Traces across the outbox with OpenTelemetry: {@link
 * dev.txoutbox.tracing.OpenTelemetryHeadersProvider} stores the writer's W3C trace context in each
 * event's headers; the relay traces each publish attempt through a {@link
 * dev.txoutbox.PublishTracer} ({@link dev.txoutbox.tracing.OpenTelemetryPublishTracer}: a send span
 * per event, linked to the writer's span, whose context replaces the writer's in the headers every
 * publisher copies onto the broker message); and {@link dev.txoutbox.tracing.TraceHeaders} lets a
 * consumer continue the trace as the send span's child.
 *
 * <p>The OpenTelemetry API is an optional dependency of the core: only this package refers to it,
 * and {@link dev.txoutbox.PublishTracer} and its {@link dev.txoutbox.PublishTracer#none()} do not,
 * so an application without {@code io.opentelemetry:opentelemetry-api} never loads it.
 */
@NullMarked
package dev.txoutbox.tracing;

import org.jspecify.annotations.NullMarked;
