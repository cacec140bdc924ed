package dev.txoutbox.tracing;

import dev.txoutbox.HeadersProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Adds the trace context of {@link Context#current()} to every event the writer records, so the
 * trace continues from the business transaction through the broker to the consumer.
 *
 * <p>By default it writes the W3C headers {@code traceparent} and {@code tracestate}, and nothing
 * when there is no valid current span. Give it another propagator, such as {@code
 * openTelemetry.getPropagators().getTextMapPropagator()}, to also carry baggage or another format.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().headersProvider(new OpenTelemetryHeadersProvider()).build();
 * }</pre>
 *
 * <p>This type is thread-safe.
 */
public final class OpenTelemetryHeadersProvider implements HeadersProvider {

  private final TextMapPropagator propagator;

  /** Captures the W3C trace context ({@code traceparent}, {@code tracestate}). */
  public OpenTelemetryHeadersProvider() {
    this(W3CTraceContextPropagator.getInstance());
  }

  /**
   * Captures what {@code propagator} injects for the current context.
   *
   * @throws NullPointerException if {@code propagator} is null
   */
  public OpenTelemetryHeadersProvider(TextMapPropagator propagator) {
    this.propagator = Objects.requireNonNull(propagator, "propagator");
  }

  /** The headers of the current context; empty when it carries no valid span. */
  @Override
  public Map<String, String> headers() {
    Map<String, String> headers = new HashMap<>(4);
    propagator.inject(Context.current(), headers, Map::put);
    return headers;
  }
}
