/**
 * The consumer side of a trace, with OpenTelemetry: {@link dev.txoutbox.inbox.tracing.InboxTracing}
 * processes an event in a span continuing the trace its headers carry. The OpenTelemetry API is an
 * optional dependency of the inbox: only this package refers to it.
 */
@NullMarked
package dev.txoutbox.inbox.tracing;

import org.jspecify.annotations.NullMarked;
