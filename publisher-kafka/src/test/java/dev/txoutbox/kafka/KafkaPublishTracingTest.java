package dev.txoutbox.kafka;

import static dev.txoutbox.spans.PublishSpans.assertSendAttributes;
import static dev.txoutbox.spans.PublishSpans.retry;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.PublishTracer;
import dev.txoutbox.spans.PublishSpans;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.tracing.OpenTelemetryPublishTracer;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
 * retryable failure. The steps and assertions shared with RabbitMQ and SQS are {@link
 * PublishSpans}'.
 */
class KafkaPublishTracingTest {

  private static EmbeddedKafka kafka;

  private final PublishSpans spans = new PublishSpans();

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
    spans.close();
  }

  private static KafkaPublisher publisher(String bootstrapServers) {
    return KafkaPublisher.builder()
        .bootstrapServers(bootstrapServers)
        .topicPrefix("traced.")
        .sendTimeout(Duration.ofSeconds(2))
        .producerProperty("max.request.size", 10_000)
        .build();
  }

  @Test
  void writerSpanLinksToSendSpanWhoseChildIsTheConsumerSpan() throws Exception {
    OutboxMessage event = spans.recorded("place order", "shipment", "o-1", "{\"n\":1}");

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      spans.publish(publisher, List.of(event), Status.PUBLISHED);
    }
    ConsumerRecord<String, byte[]> record =
        kafka.read("traced.shipment", 1, Duration.ofSeconds(30)).get(0);
    Map<String, String> headers = new HashMap<>();
    for (Header header : record.headers()) {
      headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
    }
    spans.consume("process traced.shipment", headers);

    SpanData send =
        spans.assertTraceChain(
            "place order", "send traced.shipment", "process traced.shipment", headers);
    assertSendAttributes(send, "kafka", "traced.shipment", event, 1);
    assertThat(send.getAttributes().get(AttributeKey.stringKey("messaging.kafka.message.key")))
        .isEqualTo("o-1");
  }

  @Test
  void aRetryIsASpanOfItsOwnWithItsAttemptNumberLinkedToTheSameWriter() throws Exception {
    OutboxMessage first = spans.recorded("place refund", "refund", "o-1", "{\"n\":2}");

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      // No topic traced.refund yet, and the broker creates none: a retryable failure.
      spans.publish(publisher, List.of(first), Status.RETRYABLE_FAILURE);
      kafka.createTopic("traced.refund", 1, Map.of());
      spans.publish(publisher, List.of(retry(first)), Status.PUBLISHED);
    }

    List<SpanData> attempts =
        spans.assertOneSpanPerAttempt("place refund", "send traced.refund", "retryable");
    assertThat(attempts.get(0).getStatus().getDescription()).contains("traced.refund");
  }

  @Test
  void aRecordTooLargeIsPermanentAndItsNeighbourPublished() throws Exception {
    Span writer = spans.start("place orders");
    OutboxMessage big =
        spans.recordedInside(writer, "order", "o-1", "{\"blob\":\"" + "z".repeat(20_000) + "\"}");
    OutboxMessage small = spans.recordedInside(writer, "order", "o-2", "{\"n\":3}");
    writer.end();

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      spans.publish(publisher, List.of(big, small), Status.PERMANENT_FAILURE, Status.PUBLISHED);
    }

    List<SpanData> sends =
        spans.assertPermanentBesidePublished(big, small, "RecordTooLargeException");
    assertThat(sends.get(0).getEvents()).extracting(e -> e.getName()).contains("exception");
  }

  @Test
  void noBrokerIsBrokerUnavailableNotARetryableFailure() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    OutboxMessage event = spans.recorded("place order offline", "order", "o-1", "{\"n\":4}");

    try (KafkaPublisher publisher = publisher("127.0.0.1:" + port)) {
      spans.publish(publisher, List.of(event), Status.BROKER_UNAVAILABLE);
    }

    spans.assertFailed("send traced.order", "broker_unavailable");
  }

  @Test
  void aNoopOpenTelemetryPublishesTheSameListAndRecordsNothing() throws Exception {
    Span writer = spans.start("place order untraced");
    List<OutboxMessage> batch = List.of(spans.recordedInside(writer, "order", "o-1", "{\"n\":5}"));
    writer.end();

    try (KafkaPublisher publisher = publisher(kafka.bootstrapServers())) {
      PublishTracer.Attempt attempt =
          OpenTelemetryPublishTracer.create(OpenTelemetry.noop())
              .begin(PublishSpans.RELAY, publisher, batch);
      assertThat(attempt.messages()).isSameAs(batch);
      attempt.end(publisher.publish(attempt.messages()));
    }

    assertThat(spans.sendSpans()).isEmpty();
    SpanContext writerContext = writer.getSpanContext();
    assertThat(batch.get(0).headers().get("traceparent")).contains(writerContext.getSpanId());
  }
}
