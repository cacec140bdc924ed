package dev.txoutbox.spans;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestMessages;
import dev.txoutbox.tracing.OpenTelemetryHeadersProvider;
import dev.txoutbox.tracing.OpenTelemetryPublishTracer;
import dev.txoutbox.tracing.TraceHeaders;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Core's publish spans around one broker's publisher, for the plugins' tracing tests against their
 * real brokers (Kafka, RabbitMQ, SQS), which share these steps and assertions: an OpenTelemetry SDK
 * recording into memory; the writer's side (an event recorded inside a writer span, with the
 * headers the writer stores); the relay's side (core's tracer around one {@code publish} call, as
 * the relay's kernel wraps it); the consumer's side (a span continued from the broker message's
 * headers, as {@link TraceHeaders} documents); and what every broker must show: writer span → send
 * span (a link) → consumer span (a child), the messaging attributes, one span per attempt. Reaches
 * the other plugins' tests in publisher-kafka's test jar. One per test; not thread-safe.
 */
public final class PublishSpans implements AutoCloseable {

  /** The relay name the spans carry. */
  public static final String RELAY = "relay-traced";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final Tracer app = tracerProvider.get("the-application");
  private final PublishTracer tracer =
      OpenTelemetryPublishTracer.create(
          OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build());

  /** A span of the application's, started; the caller ends it. */
  public Span start(String name) {
    return app.spanBuilder(name).startSpan();
  }

  /**
   * An event of {@code aggregateType} (event type {@code <aggregateType>.placed}) recorded inside
   * {@code writer}, with the trace headers the writer stores.
   */
  public OutboxMessage recordedInside(
      Span writer, String aggregateType, String aggregateId, String payload) {
    Map<String, String> headers;
    try (Scope ignored = writer.makeCurrent()) {
      headers = new OpenTelemetryHeadersProvider().headers();
    }
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(aggregateType + ".placed")
        .payload(payload)
        .headers(headers)
        .createdAt(Instant.parse("2026-12-06T10:00:00Z"))
        .build();
  }

  /**
   * An event recorded as {@link #recordedInside} records it, inside a writer span {@code
   * writerName} of its own, ended.
   */
  public OutboxMessage recorded(
      String writerName, String aggregateType, String aggregateId, String payload) {
    Span writer = start(writerName);
    try {
      return recordedInside(writer, aggregateType, aggregateId, payload);
    } finally {
      writer.end();
    }
  }

  /** {@code message} as the relay hands it over on its next attempt. */
  public static OutboxMessage retry(OutboxMessage message) {
    return message.toBuilder().attempt(message.attempt() + 1).build();
  }

  /** What the relay does with a batch: trace the attempt around the publisher's one call. */
  public List<PublishResult> publishTraced(Publisher publisher, List<OutboxMessage> batch)
      throws InterruptedException {
    PublishTracer.Attempt attempt = tracer.begin(RELAY, publisher, batch);
    List<PublishResult> results;
    try {
      results = publisher.publish(attempt.messages());
    } catch (InterruptedException | RuntimeException e) {
      attempt.failed(e);
      throw e;
    }
    attempt.end(results);
    return results;
  }

  /**
   * {@link #publishTraced} and asserts the publisher's answer: one status per message, in order.
   */
  public void publish(Publisher publisher, List<OutboxMessage> batch, Status... expected)
      throws InterruptedException {
    assertThat(publishTraced(publisher, batch))
        .extracting(PublishResult::status)
        .containsExactly(expected);
  }

  /** A consumer's span {@code name}, continuing the trace from a broker message's headers. */
  public void consume(String name, Map<String, String> brokerHeaders) {
    app.spanBuilder(name)
        .setParent(TraceHeaders.extract(brokerHeaders))
        .setSpanKind(SpanKind.CONSUMER)
        .startSpan()
        .end();
  }

  /** The last finished span named {@code name}. */
  public SpanData span(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans));
  }

  /** The send spans, in the order they ended. */
  public List<SpanData> sendSpans() {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.PRODUCER)
        .toList();
  }

  /**
   * Asserts writer span → send span → consumer span: the send span is a {@code PRODUCER} span of a
   * new trace, published ({@code OK}), linked to the writer's span; the broker message carried the
   * send span's context, not the writer's; the consumer span is the send span's child.
   *
   * @return the send span, for the broker's own attributes
   */
  public SpanData assertTraceChain(
      String writerName, String sendName, String consumerName, Map<String, String> brokerHeaders) {
    SpanData writer = span(writerName);
    SpanData send = span(sendName);
    SpanData consumer = span(consumerName);
    assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getParentSpanContext().isValid()).isFalse();
    assertThat(send.getTraceId()).isNotEqualTo(writer.getTraceId());
    assertThat(send.getLinks())
        .extracting(link -> link.getSpanContext().getSpanId())
        .containsExactly(writer.getSpanId());
    assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(brokerHeaders.get("traceparent"))
        .as("the broker message's traceparent")
        .contains(send.getSpanId())
        .doesNotContain(writer.getSpanId());
    assertThat(consumer.getParentSpanId()).isEqualTo(send.getSpanId());
    assertThat(consumer.getTraceId()).isEqualTo(send.getTraceId());
    return send;
  }

  /**
   * Asserts the messaging attributes of {@code send}, the span of {@code event}'s publish in a
   * batch of {@code batchSize}: system, destination, operation, message id (the event id), event
   * and aggregate type, attempt, batch size, relay, no {@code error.type}.
   */
  public static void assertSendAttributes(
      SpanData send, String system, String destination, OutboxMessage event, long batchSize) {
    assertThat(send.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey("messaging.system"), system)
        .containsEntry(AttributeKey.stringKey("messaging.destination.name"), destination)
        .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "send")
        .containsEntry(AttributeKey.stringKey("messaging.operation.name"), "send")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), event.id().toString())
        .containsEntry(AttributeKey.stringKey("txoutbox.event.type"), event.eventType())
        .containsEntry(AttributeKey.stringKey("txoutbox.aggregate.type"), event.aggregateType())
        .containsEntry(AttributeKey.longKey("txoutbox.attempt"), (long) event.attempt())
        .containsEntry(AttributeKey.longKey("txoutbox.batch.size"), batchSize)
        .containsEntry(AttributeKey.stringKey("txoutbox.relay.name"), RELAY)
        .doesNotContainKey(AttributeKey.stringKey("error.type"));
  }

  /**
   * Asserts that an event published at its second attempt left two send spans named {@code
   * sendName}: attempt 1 failed with {@code firstErrorType}, attempt 2 published, each a span of
   * its own linked to the same writer span.
   *
   * @return the two send spans, failed first
   */
  public List<SpanData> assertOneSpanPerAttempt(
      String writerName, String sendName, String firstErrorType) {
    String writerId = span(writerName).getSpanId();
    List<SpanData> attempts = sendSpans();
    assertThat(attempts).hasSize(2);
    SpanData failed = attempts.get(0);
    SpanData published = attempts.get(1);
    assertThat(failed.getAttributes().get(AttributeKey.longKey("txoutbox.attempt"))).isEqualTo(1L);
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo(firstErrorType);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(published.getAttributes().get(AttributeKey.longKey("txoutbox.attempt")))
        .isEqualTo(2L);
    assertThat(published.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(published.getAttributes().get(AttributeKey.stringKey("error.type"))).isNull();
    assertThat(published.getSpanId()).isNotEqualTo(failed.getSpanId());
    for (SpanData attempt : attempts) {
      assertThat(attempt.getName()).isEqualTo(sendName);
      assertThat(attempt.getLinks())
          .extracting(link -> link.getSpanContext().getSpanId())
          .containsExactly(writerId);
    }
    return attempts;
  }

  /**
   * Asserts that the last send span named {@code sendName} failed with {@code errorType} and status
   * {@code ERROR}.
   *
   * @return that span
   */
  public SpanData assertFailed(String sendName, String errorType) {
    SpanData send = span(sendName);
    assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(send.getAttributes().get(AttributeKey.stringKey("error.type"))).isEqualTo(errorType);
    return send;
  }

  /**
   * Asserts the send spans of a batch of {@code refused} then {@code accepted}: the first failed
   * permanently (status {@code ERROR}, {@code error.type} {@code permanent}, its description
   * holding {@code reason}), the second published; each with its message id and batch size 2.
   *
   * @return the two send spans, refused first
   */
  public List<SpanData> assertPermanentBesidePublished(
      OutboxMessage refused, OutboxMessage accepted, String reason) {
    List<SpanData> sends = sendSpans();
    assertThat(sends)
        .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
        .containsExactly(refused.id().toString(), accepted.id().toString());
    assertThat(sends.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(sends.get(0).getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("permanent");
    assertThat(sends.get(0).getStatus().getDescription()).contains(reason);
    assertThat(sends.get(1).getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(sends)
        .extracting(s -> s.getAttributes().get(AttributeKey.longKey("txoutbox.batch.size")))
        .containsOnly(2L);
    return sends;
  }

  @Override
  public void close() {
    tracerProvider.close();
  }
}
