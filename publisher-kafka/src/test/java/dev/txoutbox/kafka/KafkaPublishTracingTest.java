package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.testing.TestMessages;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.tracing.OpenTelemetryHeadersProvider;
import dev.txoutbox.tracing.OpenTelemetryPublishTracer;
import dev.txoutbox.tracing.TraceHeaders;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Core's publish spans around the Kafka publisher and a real broker: writer span, send span linked
 * to it, consumer span continued from the Kafka record's headers as the send span's child; one span
 * per attempt; each outcome. Own broker with topic auto-creation off, so a missing topic is a
 * retryable failure.
 */
class KafkaPublishTracingTest {

  private static final String RELAY = "relay-traced";
  private static EmbeddedKafka kafka;

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final OpenTelemetry otel =
      OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build();
  private final Tracer app = tracerProvider.get("the-application");
  private final PublishTracer tracer = OpenTelemetryPublishTracer.create(otel);

  @BeforeAll
  static void startBroker() {
    kafka = EmbeddedKafka.builder().brokerProperty("auto.create.topics.enable", "false").start();
    kafka.createTopic("traced.order", 1, Map.of());
    kafka.createTopic("traced.shipment", 1, Map.of());
  }

  @AfterAll
  static void closeBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @AfterEach
  void closeTracing() {
    tracerProvider.close();
  }

  private static KafkaPublisher publisher(String bootstrapServers) {
    return KafkaPublisher.builder()
        .bootstrapServers(bootstrapServers)
        .topicPrefix("traced.")
        .sendTimeout(Duration.ofSeconds(2))
        .producerProperty("max.request.size", 10_000)
        .build();
  }

  /** What the relay does with a batch: trace the attempt around the publisher's one call. */
  private List<PublishResult> publishTraced(KafkaPublisher publisher, List<OutboxMessage> batch)
      throws InterruptedException {
    PublishTracer.Attempt attempt = tracer.begin(RELAY, publisher, batch);
    List<PublishResult> results = publisher.publish(attempt.messages());
    attempt.end(results);
    return results;
  }

  /** An event recorded inside the writer's span, with the headers the writer stores. */
  private OutboxMessage recordedInside(Span writer, String aggregateType, String payload) {
    return recordedInside(writer, aggregateType, "o-1", payload);
  }

  private OutboxMessage recordedInside(
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

  private static OutboxMessage retry(OutboxMessage message) {
    return message.toBuilder().attempt(message.attempt() + 1).build();
  }

  private SpanData span(String name) {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(name))
        .reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + spans));
  }

  private List<SpanData> sendSpans() {
    return spans.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == SpanKind.PRODUCER)
        .toList();
  }

  @Test
  void writerSpanLinksToSendSpanWhoseChildIsTheConsumerSpan() throws Exception {
    Span writer = app.spanBuilder("place order").startSpan();
    OutboxMessage event = recordedInside(writer, "shipment", "{\"n\":1}");
    writer.end();

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      assertThat(publishTraced(publisher, List.of(event)))
          .extracting(PublishResult::status)
          .containsExactly(Status.PUBLISHED);
    }
    // The consumer: continue the trace from the record's headers, as TraceHeaders documents.
    ConsumerRecord<String, byte[]> record =
        kafka.read("traced.shipment", 1, Duration.ofSeconds(30)).get(0);
    Map<String, String> headers = new HashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    Context parent = TraceHeaders.extract(headers);
    app.spanBuilder("process traced.shipment")
        .setParent(parent)
        .setSpanKind(SpanKind.CONSUMER)
        .startSpan()
        .end();

    SpanData writerSpan = span("place order");
    SpanData send = span("send traced.shipment");
    SpanData consumer = span("process traced.shipment");
    assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getParentSpanContext().isValid()).isFalse();
    assertThat(send.getTraceId()).isNotEqualTo(writerSpan.getTraceId());
    assertThat(send.getLinks())
        .extracting(link -> link.getSpanContext().getSpanId())
        .containsExactly(writerSpan.getSpanId());
    assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(send.getAttributes().asMap())
        .containsEntry(AttributeKey.stringKey("messaging.system"), "kafka")
        .containsEntry(AttributeKey.stringKey("messaging.destination.name"), "traced.shipment")
        .containsEntry(AttributeKey.stringKey("messaging.operation.type"), "send")
        .containsEntry(AttributeKey.stringKey("messaging.operation.name"), "send")
        .containsEntry(AttributeKey.stringKey("messaging.message.id"), event.id().toString())
        .containsEntry(AttributeKey.stringKey("messaging.kafka.message.key"), "o-1")
        .containsEntry(AttributeKey.stringKey("txoutbox.event.type"), "shipment.placed")
        .containsEntry(AttributeKey.stringKey("txoutbox.aggregate.type"), "shipment")
        .containsEntry(AttributeKey.longKey("txoutbox.attempt"), 1L)
        .containsEntry(AttributeKey.longKey("txoutbox.batch.size"), 1L)
        .containsEntry(AttributeKey.stringKey("txoutbox.relay.name"), RELAY)
        .doesNotContainKey(AttributeKey.stringKey("error.type"));
    // The record carried the send span's context, not the writer's.
    assertThat(headers.get("traceparent"))
        .contains(send.getSpanId())
        .doesNotContain(writerSpan.getSpanId());
    assertThat(consumer.getParentSpanId()).isEqualTo(send.getSpanId());
    assertThat(consumer.getTraceId()).isEqualTo(send.getTraceId());
  }

  @Test
  void aRetryIsASpanOfItsOwnWithItsAttemptNumberLinkedToTheSameWriter() throws Exception {
    Span writer = app.spanBuilder("place refund").startSpan();
    OutboxMessage first = recordedInside(writer, "refund", "{\"n\":2}");
    writer.end();

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      // No topic traced.refund yet, and the broker creates none: a retryable failure.
      assertThat(publishTraced(publisher, List.of(first)))
          .extracting(PublishResult::status)
          .containsExactly(Status.RETRYABLE_FAILURE);
      kafka.createTopic("traced.refund", 1, Map.of());
      assertThat(publishTraced(publisher, List.of(retry(first))))
          .extracting(PublishResult::status)
          .containsExactly(Status.PUBLISHED);
    }

    String writerId = span("place refund").getSpanId();
    List<SpanData> attempts = sendSpans();
    assertThat(attempts).hasSize(2);
    SpanData failed = attempts.get(0);
    SpanData published = attempts.get(1);
    assertThat(failed.getAttributes().get(AttributeKey.longKey("txoutbox.attempt"))).isEqualTo(1L);
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("retryable");
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getStatus().getDescription()).contains("traced.refund");
    assertThat(published.getAttributes().get(AttributeKey.longKey("txoutbox.attempt")))
        .isEqualTo(2L);
    assertThat(published.getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(published.getSpanId()).isNotEqualTo(failed.getSpanId());
    for (SpanData attempt : attempts) {
      assertThat(attempt.getName()).isEqualTo("send traced.refund");
      assertThat(attempt.getLinks())
          .extracting(link -> link.getSpanContext().getSpanId())
          .containsExactly(writerId);
    }
  }

  @Test
  void aRecordTooLargeIsPermanentAndItsNeighbourPublished() throws Exception {
    Span writer = app.spanBuilder("place orders").startSpan();
    OutboxMessage big =
        recordedInside(writer, "order", "{\"blob\":\"" + "z".repeat(20_000) + "\"}");
    OutboxMessage small = recordedInside(writer, "order", "o-2", "{\"n\":3}");
    writer.end();

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      assertThat(publishTraced(publisher, List.of(big, small)))
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE, Status.PUBLISHED);
    }

    List<SpanData> sends = sendSpans();
    assertThat(sends).hasSize(2);
    assertThat(sends)
        .extracting(s -> s.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
        .containsExactly(big.id().toString(), small.id().toString());
    assertThat(sends.get(0).getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("permanent");
    assertThat(sends.get(0).getStatus().getDescription()).contains("RecordTooLargeException");
    assertThat(sends.get(0).getEvents()).extracting(e -> e.getName()).contains("exception");
    assertThat(sends.get(1).getStatus().getStatusCode()).isEqualTo(StatusCode.OK);
    assertThat(sends)
        .extracting(s -> s.getAttributes().get(AttributeKey.longKey("txoutbox.batch.size")))
        .containsOnly(2L);
  }

  @Test
  void noBrokerIsBrokerUnavailableNotARetryableFailure() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    Span writer = app.spanBuilder("place order offline").startSpan();
    OutboxMessage event = recordedInside(writer, "order", "{\"n\":4}");
    writer.end();

    try (KafkaPublisher publisher = publisher("127.0.0.1:" + port)) {
      assertThat(publishTraced(publisher, List.of(event)))
          .extracting(PublishResult::status)
          .containsExactly(Status.BROKER_UNAVAILABLE);
    }

    SpanData send = span("send traced.order");
    assertThat(send.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(send.getAttributes().get(AttributeKey.stringKey("error.type")))
        .isEqualTo("broker_unavailable");
  }

  @Test
  void aNoopOpenTelemetryPublishesTheSameListAndRecordsNothing() throws Exception {
    Span writer = app.spanBuilder("place order untraced").startSpan();
    List<OutboxMessage> batch = List.of(recordedInside(writer, "order", "{\"n\":5}"));
    writer.end();

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      PublishTracer.Attempt attempt =
          OpenTelemetryPublishTracer.create(OpenTelemetry.noop()).begin(RELAY, publisher, batch);
      assertThat(attempt.messages()).isSameAs(batch);
      attempt.end(publisher.publish(attempt.messages()));
    }

    assertThat(sendSpans()).isEmpty();
    SpanContext writerContext = writer.getSpanContext();
    assertThat(batch.get(0).headers().get("traceparent")).contains(writerContext.getSpanId());
  }
}
