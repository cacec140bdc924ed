package dev.txoutbox.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenTelemetryHeadersProviderTest {

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN_ID = "00f067aa0ba902b7";

  // Without a span processor the SDK hands out no-op tracers.
  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create()))
          .build();
  private final Tracer tracer = tracerProvider.get("txoutbox-test");

  @AfterEach
  void close() {
    tracerProvider.close();
  }

  @Test
  void capturesTheTraceparentOfTheCurrentSpan() {
    Span span = tracer.spanBuilder("create order").startSpan();
    Map<String, String> headers;
    try (Scope ignored = span.makeCurrent()) {
      headers = new OpenTelemetryHeadersProvider().headers();
    } finally {
      span.end();
    }

    SpanContext sc = span.getSpanContext();
    assertThat(headers)
        .containsOnlyKeys("traceparent")
        .containsEntry(
            "traceparent",
            "00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-" + sc.getTraceFlags().asHex());
  }

  @Test
  void capturesTheTracestateToo() {
    SpanContext remote =
        SpanContext.create(
            TRACE_ID,
            SPAN_ID,
            TraceFlags.getSampled(),
            TraceState.builder().put("vendor", "abc").build());
    Map<String, String> headers;
    try (Scope ignored = Span.wrap(remote).makeCurrent()) {
      headers = new OpenTelemetryHeadersProvider().headers();
    }

    assertThat(headers)
        .containsEntry("traceparent", "00-" + TRACE_ID + "-" + SPAN_ID + "-01")
        .containsEntry("tracestate", "vendor=abc");
  }

  @Test
  void addsNoHeadersWithoutAValidCurrentSpan() {
    assertThat(new OpenTelemetryHeadersProvider().headers()).isEmpty();
    try (Scope ignored = Span.getInvalid().makeCurrent()) {
      assertThat(new OpenTelemetryHeadersProvider().headers()).isEmpty();
    }
  }

  @Test
  void anotherPropagatorCarriesBaggageToo() {
    TextMapPropagator propagator =
        TextMapPropagator.composite(
            W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());
    Span span = tracer.spanBuilder("create order").startSpan();
    Context context =
        Context.current().with(span).with(Baggage.builder().put("tenant", "acme").build());
    Map<String, String> headers;
    try (Scope ignored = context.makeCurrent()) {
      headers = new OpenTelemetryHeadersProvider(propagator).headers();
    } finally {
      span.end();
    }

    assertThat(headers).containsKeys("traceparent").containsEntry("baggage", "tenant=acme");
    assertThatThrownBy(() -> new OpenTelemetryHeadersProvider(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("propagator");
  }

  @Test
  void aConsumerContinuesTheTraceFromReceivedHeaders() {
    Span producer = tracer.spanBuilder("create order").startSpan();
    Map<String, String> headers;
    try (Scope ignored = producer.makeCurrent()) {
      headers = new OpenTelemetryHeadersProvider().headers();
    } finally {
      producer.end();
    }

    Context parent = TraceHeaders.extract(headers);
    Span consumer = tracer.spanBuilder("handle order.created").setParent(parent).startSpan();
    consumer.end();

    SpanContext remote = Span.fromContext(parent).getSpanContext();
    assertThat(remote.isRemote()).isTrue();
    assertThat(remote.getTraceId()).isEqualTo(producer.getSpanContext().getTraceId());
    assertThat(remote.getSpanId()).isEqualTo(producer.getSpanContext().getSpanId());
    assertThat(((ReadableSpan) consumer).getParentSpanContext().getSpanId())
        .isEqualTo(producer.getSpanContext().getSpanId());
    assertThat(consumer.getSpanContext().getTraceId())
        .isEqualTo(producer.getSpanContext().getTraceId());
  }

  @Test
  void extractMatchesHeaderNamesIgnoringCaseAndToleratesNone() {
    Context upper =
        TraceHeaders.extract(Map.of("Traceparent", "00-" + TRACE_ID + "-" + SPAN_ID + "-01"));
    assertThat(Span.fromContext(upper).getSpanContext().getTraceId()).isEqualTo(TRACE_ID);

    Context none = TraceHeaders.extract(Map.of("other", "x"));
    assertThat(Span.fromContext(none).getSpanContext().isValid()).isFalse();

    Context garbage = TraceHeaders.extract(Map.of("traceparent", "not-a-trace"));
    assertThat(Span.fromContext(garbage).getSpanContext().isValid()).isFalse();

    assertThatThrownBy(() -> TraceHeaders.extract(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("headers");
  }
}
