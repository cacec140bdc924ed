package dev.txoutbox.tracing;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * For consumers: the trace context carried by a received event's headers, to start the consumer's
 * span as a child of the writer's.
 *
 * <pre>{@code
 * Context parent = TraceHeaders.extract(headersOf(record));
 * Span span = tracer.spanBuilder("order.created process").setParent(parent)
 *     .setSpanKind(SpanKind.CONSUMER).startSpan();
 * }</pre>
 *
 * <p>Header names are matched exactly first, then ignoring case (some brokers and bridges change
 * the case of header names). This type is thread-safe.
 */
public final class TraceHeaders {

  private static final TextMapGetter<Map<String, String>> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
          if (carrier == null) {
            return null;
          }
          String value = carrier.get(key);
          if (value != null) {
            return value;
          }
          for (Map.Entry<String, String> e : carrier.entrySet()) {
            if (e.getKey() != null && e.getKey().toLowerCase(Locale.ROOT).equals(key)) {
              return e.getValue();
            }
          }
          return null;
        }
      };

  private TraceHeaders() {}

  /**
   * {@link Context#current()} with the W3C trace context of {@code headers}; the current context
   * unchanged when they hold none or an invalid one.
   *
   * @throws NullPointerException if {@code headers} is null
   */
  public static Context extract(Map<String, String> headers) {
    return extract(W3CTraceContextPropagator.getInstance(), headers);
  }

  /**
   * {@link Context#current()} with what {@code propagator} finds in {@code headers}.
   *
   * @throws NullPointerException if an argument is null
   */
  public static Context extract(TextMapPropagator propagator, Map<String, String> headers) {
    Objects.requireNonNull(propagator, "propagator");
    Objects.requireNonNull(headers, "headers");
    return extract(propagator, Context.current(), headers);
  }

  /** {@code base} with what {@code propagator} finds in {@code headers}. */
  static Context extract(TextMapPropagator propagator, Context base, Map<String, String> headers) {
    return propagator.extract(base, headers, GETTER);
  }
}
