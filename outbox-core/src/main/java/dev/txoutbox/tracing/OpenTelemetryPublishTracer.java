package dev.txoutbox.tracing;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Traces the relay's publish attempts with OpenTelemetry: one <em>send</em> span per event and
 * attempt, following the OpenTelemetry semantic conventions for messaging spans.
 *
 * <h2>One span per event, not one per batch</h2>
 *
 * The conventions let a "send" span cover one message or a batch; a batch span must then either
 * inject its one context into every message (all consumers become children of one span that cannot
 * carry a message id, a destination when a batch spans several, or each message's outcome) or come
 * with a "create" span per message (one span more per batch, and no span of a message's own send).
 * The relay gets an outcome per message, and each event has its own attempt number and destination,
 * so each event gets its own send span, whose context the conventions allow to serve as the
 * message's creation context when a send span covers a single message. For the same reason the span
 * does not carry {@code messaging.batch.message_count}, which the conventions keep for spans of a
 * batch: the relay's batch size is {@code txoutbox.batch.size}.
 *
 * <h2>The spans</h2>
 *
 * <ul>
 *   <li>Kind {@code PRODUCER}; name {@code send <destination>} ({@code send} alone when the
 *       publisher names no destination, or the destination is RabbitMQ's default exchange {@code
 *       ""}).
 *   <li>A new trace, <b>linked</b> to the writer's span whose context the event's stored headers
 *       carry ({@link OpenTelemetryHeadersProvider}), not its child: an event may be published long
 *       after, and several times. Each retry is a span of its own, with its attempt number.
 *   <li>Attributes: {@code messaging.system} ({@link Publisher#messagingSystem()}), {@code
 *       messaging.destination.name} ({@link Publisher#destinationName}), {@code
 *       messaging.operation.type} and {@code messaging.operation.name} {@code send}, {@code
 *       messaging.message.id} (the event id), the publisher's {@link Publisher#messagingAttributes
 *       own ones}, and {@code txoutbox.event.type}, {@code txoutbox.aggregate.type}, {@code
 *       txoutbox.attempt}, {@code txoutbox.batch.size}, {@code txoutbox.relay.name}.
 *   <li>Outcome: published gives status {@code OK}. Any other outcome gives status {@code ERROR}
 *       with the reason (secrets masked) and {@code error.type}, one of a fixed, low-cardinality
 *       list: {@code retryable}, {@code permanent}, {@code broker_unavailable} (the broker could
 *       not be reached: a failure of the send, so an error, but one that costs the event no
 *       attempt, so kept apart from {@code retryable}), {@code not_sent} (held back because an
 *       earlier event of its aggregate failed), or, when {@code publish} threw, the exception's
 *       class name, as the conventions ask. A failure's cause is added as an {@code exception}
 *       event with its type and masked message.
 * </ul>
 *
 * <p>Each message handed to the publisher carries its send span's context in its headers (in place
 * of the writer's), so a consumer that continues the trace from the broker message's headers
 * ({@link TraceHeaders}) becomes the send span's child. Other headers the propagator knows, such as
 * baggage, are carried over.
 *
 * <p>Cost: with {@link OpenTelemetry#noop()} (or any OpenTelemetry whose tracer provider is the
 * no-op one) {@link #begin} returns the batch as it is, without looking at a message. When a span
 * is not recorded (a sampler dropped it, or the SDK has no span processor), its message is sent
 * unchanged, so its consumer still continues the writer's trace; when none is, the batch is
 * returned as it is.
 *
 * <p>This class is thread-safe.
 */
public final class OpenTelemetryPublishTracer implements PublishTracer {

  /** The instrumentation scope name of the spans. */
  public static final String INSTRUMENTATION_NAME = "dev.txoutbox";

  private final Tracer tracer;
  private final TextMapPropagator propagator;
  private final Set<String> propagatorFields;
  private final boolean disabled;

  private OpenTelemetryPublishTracer(OpenTelemetry openTelemetry, TextMapPropagator propagator) {
    TracerProvider provider = openTelemetry.getTracerProvider();
    this.tracer = provider.get(INSTRUMENTATION_NAME);
    this.propagator = propagator;
    this.propagatorFields =
        propagator.fields().stream()
            .map(f -> f.toLowerCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
    this.disabled = provider == TracerProvider.noop();
  }

  /**
   * A tracer with {@code openTelemetry}'s tracer provider, reading and writing the W3C trace
   * context headers ({@code traceparent}, {@code tracestate}), as {@link
   * OpenTelemetryHeadersProvider} writes them by default.
   *
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static OpenTelemetryPublishTracer create(OpenTelemetry openTelemetry) {
    return create(openTelemetry, W3CTraceContextPropagator.getInstance());
  }

  /**
   * A tracer with {@code openTelemetry}'s tracer provider that reads and writes the headers {@code
   * propagator} knows, such as {@code openTelemetry.getPropagators().getTextMapPropagator()} to
   * carry baggage too. Use the propagator the writer's {@link OpenTelemetryHeadersProvider} uses.
   *
   * @throws NullPointerException if an argument is null
   */
  public static OpenTelemetryPublishTracer create(
      OpenTelemetry openTelemetry, TextMapPropagator propagator) {
    return new OpenTelemetryPublishTracer(
        Objects.requireNonNull(openTelemetry, "openTelemetry"),
        Objects.requireNonNull(propagator, "propagator"));
  }

  @Override
  public Attempt begin(String relayName, Publisher publisher, List<OutboxMessage> batch) {
    Objects.requireNonNull(relayName, "relayName");
    Objects.requireNonNull(publisher, "publisher");
    Objects.requireNonNull(batch, "batch");
    if (disabled || batch.isEmpty()) {
      return PublishTracer.none().begin(relayName, publisher, batch);
    }
    String system = publisher.messagingSystem();
    Span[] spans = new Span[batch.size()];
    List<OutboxMessage> traced = null;
    for (int i = 0; i < spans.length; i++) {
      OutboxMessage message = batch.get(i);
      Context stored = TraceHeaders.extract(propagator, Context.root(), message.headers());
      Span span = start(relayName, publisher, system, message, stored, batch.size());
      if (i == 0 && !span.getSpanContext().isValid()) {
        return PublishTracer.none()
            .begin(relayName, publisher, batch); // a no-op tracer: nothing will ever be recorded
      }
      spans[i] = span;
      if (span.isRecording()) {
        if (traced == null) {
          traced = new ArrayList<>(batch);
        }
        traced.set(i, withContext(message, stored.with(span)));
      }
    }
    return new TracedAttempt(traced == null ? batch : traced, spans);
  }

  private Span start(
      String relayName,
      Publisher publisher,
      @Nullable String system,
      OutboxMessage message,
      Context stored,
      int batchSize) {
    String destination = destination(publisher, message);
    SpanBuilder builder =
        tracer
            .spanBuilder(
                destination == null || destination.isEmpty() ? "send" : "send " + destination)
            .setSpanKind(SpanKind.PRODUCER)
            .setNoParent()
            .setAttribute(SpanAttributes.OPERATION_TYPE, "send")
            .setAttribute(SpanAttributes.OPERATION_NAME, "send");
    if (system != null) {
      builder.setAttribute(SpanAttributes.SYSTEM, system);
    }
    if (destination != null) {
      builder.setAttribute(SpanAttributes.DESTINATION_NAME, destination);
    }
    SpanContext writer = Span.fromContext(stored).getSpanContext();
    if (writer.isValid()) {
      builder.addLink(writer);
    }
    Span span = builder.startSpan();
    if (span.isRecording()) {
      span.setAttribute(SpanAttributes.MESSAGE_ID, message.id().toString());
      span.setAttribute(SpanAttributes.EVENT_TYPE, message.eventType());
      span.setAttribute(SpanAttributes.AGGREGATE_TYPE, message.aggregateType());
      span.setAttribute(SpanAttributes.ATTEMPT, message.attempt());
      span.setAttribute(SpanAttributes.BATCH_SIZE, batchSize);
      span.setAttribute(SpanAttributes.RELAY_NAME, relayName);
      for (Map.Entry<String, String> e : attributes(publisher, message).entrySet()) {
        span.setAttribute(e.getKey(), e.getValue());
      }
    }
    return span;
  }

  /** {@code message} with {@code context} in its headers in place of the stored trace context. */
  private OutboxMessage withContext(OutboxMessage message, Context context) {
    Map<String, String> headers = new LinkedHashMap<>(message.headers().size() * 2 + 4);
    message
        .headers()
        .forEach(
            (name, value) -> {
              if (!propagatorFields.contains(name.toLowerCase(Locale.ROOT))) {
                headers.put(name, value);
              }
            });
    propagator.inject(context, headers, Map::put);
    return message.toBuilder().headers(headers).build();
  }

  /** The publisher's destination; null if it has none or breaks its promise not to throw. */
  private static @Nullable String destination(Publisher publisher, OutboxMessage message) {
    try {
      return publisher.destinationName(message);
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static Map<String, String> attributes(Publisher publisher, OutboxMessage message) {
    try {
      Map<String, String> attributes = publisher.messagingAttributes(message);
      return attributes == null ? Map.of() : attributes;
    } catch (RuntimeException e) {
      return Map.of();
    }
  }
}
