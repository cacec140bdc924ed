package dev.txoutbox.inbox.tracing;

import dev.txoutbox.inbox.InboxEvent;
import dev.txoutbox.inbox.InboxWork;
import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.spi.SecretMasking;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Continues an event's trace on the consumer side: {@link #process} runs {@link
 * OutboxInbox#process(DSLContext, String, InboxEvent, InboxWork)} inside a {@code CONSUMER} span
 * named {@code process}, the <b>child</b> of the context the event's headers carry (the relay's
 * send span when the relay traces, else the writer's span), as the OpenTelemetry messaging
 * conventions allow for the processing of a single message; the span also links to that context,
 * and to the span current on the calling thread, if any (such as a broker client's own receive
 * span), so neither relation is lost.
 *
 * <pre>{@code
 * InboxTracing tracing = InboxTracing.create(openTelemetry);
 * dsl.transaction(c -> tracing.process(inbox, c.dsl(), "shipping", InboxEvent.from(headers), work));
 * }</pre>
 *
 * <p>Attributes: {@code messaging.operation.type} and {@code messaging.operation.name} {@code
 * process}, {@code messaging.message.id} (the event id), {@code txoutbox.event.type}, {@code
 * txoutbox.aggregate.type}, {@code txoutbox.inbox.consumer}, and {@code txoutbox.inbox.duplicate}
 * ({@code true} when the event was processed before and the work skipped). The work runs with the
 * span current, so its own spans (SQL, HTTP) become its children. A work that throws ends the span
 * with status {@code ERROR}, {@code error.type} the exception's class name and an {@code exception}
 * event with its masked message; the exception is thrown on.
 *
 * <p>The OpenTelemetry API is an optional dependency of the inbox: only this package refers to it.
 * This class is thread-safe.
 */
public final class InboxTracing {

  /** The instrumentation scope name of the spans. */
  public static final String INSTRUMENTATION_NAME = "dev.txoutbox.inbox";

  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<Boolean> DUPLICATE =
      AttributeKey.booleanKey("txoutbox.inbox.duplicate");

  /** Reads header names exactly first, then ignoring case, as core's TraceHeaders does. */
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
            if (e.getKey().toLowerCase(Locale.ROOT).equals(key)) {
              return e.getValue();
            }
          }
          return null;
        }
      };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  private InboxTracing(Tracer tracer, TextMapPropagator propagator) {
    this.tracer = tracer;
    this.propagator = propagator;
  }

  /**
   * Tracing with {@code openTelemetry}'s tracer provider, reading the W3C trace context headers.
   *
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static InboxTracing create(OpenTelemetry openTelemetry) {
    return create(openTelemetry, W3CTraceContextPropagator.getInstance());
  }

  /**
   * Tracing with {@code openTelemetry}'s tracer provider, reading what {@code propagator} knows
   * (the propagator the producer side uses).
   *
   * @throws NullPointerException if an argument is null
   */
  public static InboxTracing create(OpenTelemetry openTelemetry, TextMapPropagator propagator) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    Objects.requireNonNull(propagator, "propagator");
    return new InboxTracing(openTelemetry.getTracer(INSTRUMENTATION_NAME), propagator);
  }

  /**
   * {@link OutboxInbox#process(DSLContext, String, InboxEvent, InboxWork)} in a {@code process}
   * span continuing {@code event}'s trace; same arguments, result and exceptions.
   *
   * @return {@code true} if {@code work} ran, {@code false} for a duplicate
   * @throws NullPointerException if an argument is null
   */
  public boolean process(
      OutboxInbox inbox, DSLContext tx, String consumerName, InboxEvent event, InboxWork work) {
    Objects.requireNonNull(inbox, "inbox");
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(work, "work");
    Context ambient = Context.current();
    Context creation = propagator.extract(ambient, event.headers(), GETTER);
    SpanBuilder builder =
        tracer
            .spanBuilder("process")
            .setSpanKind(SpanKind.CONSUMER)
            .setParent(creation)
            .setAttribute("messaging.operation.type", "process")
            .setAttribute("messaging.operation.name", "process");
    SpanContext created = Span.fromContext(creation).getSpanContext();
    SpanContext current = Span.fromContext(ambient).getSpanContext();
    if (created.isValid()) {
      builder.addLink(created);
    }
    if (current.isValid() && !current.equals(created)) {
      builder.addLink(current);
    }
    Span span = builder.startSpan();
    if (span.isRecording()) {
      span.setAttribute("messaging.message.id", event.eventId().toString());
      span.setAttribute("txoutbox.event.type", event.eventType());
      span.setAttribute("txoutbox.aggregate.type", event.aggregateType());
      span.setAttribute("txoutbox.inbox.consumer", String.valueOf(consumerName));
    }
    try (Scope ignored = creation.with(span).makeCurrent()) {
      boolean ran = inbox.process(tx, consumerName, event, work);
      span.setAttribute(DUPLICATE, !ran);
      return ran;
    } catch (RuntimeException | Error e) {
      span.setAttribute(ERROR_TYPE, e.getClass().getName());
      span.setStatus(StatusCode.ERROR, SecretMasking.maskText(e.toString()));
      span.addEvent(
          "exception",
          Attributes.of(
              AttributeKey.stringKey("exception.type"),
              e.getClass().getName(),
              AttributeKey.stringKey("exception.message"),
              String.valueOf(SecretMasking.maskText(e.getMessage()))));
      throw e;
    } finally {
      span.end();
    }
  }
}
