package dev.txoutbox.rabbit;

import static dev.txoutbox.spans.PublishSpans.assertSendAttributes;
import static dev.txoutbox.spans.PublishSpans.retry;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Delivery;
import dev.txoutbox.spans.PublishSpans;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult.Status;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Core's publish spans around the RabbitMQ publisher and the real broker, as {@code
 * KafkaPublishTracingTest} runs them through Kafka ({@link PublishSpans}): writer span, send span
 * linked to it, consumer span continued from the delivery's headers as the send span's child; one
 * span per attempt; each outcome.
 */
class RabbitPublishTracingTest {

  private static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(30);

  private final PublishSpans spans = new PublishSpans();
  private TestTopology topology;

  @BeforeEach
  void createTopology() throws Exception {
    topology = TestTopology.create("traced", "shipment.*", "order.*");
  }

  @AfterEach
  void cleanUp() throws Exception {
    spans.close();
    topology.close();
  }

  private RabbitPublisher.Builder builder() {
    return RabbitPublisher.builder()
        .connectionFactory(RabbitTestBroker.factory())
        .exchange(topology.exchange());
  }

  private String send() {
    return "send " + topology.exchange();
  }

  @Test
  void writerSpanLinksToSendSpanWhoseChildIsTheConsumerSpan() throws Exception {
    OutboxMessage event = spans.recorded("place shipment", "shipment", "s-1", "{\"n\":1}");

    try (RabbitPublisher publisher = builder().build()) {
      spans.publish(publisher, List.of(event), Status.PUBLISHED);
    }
    Delivery delivery = topology.take(1, RECEIVE_TIMEOUT).get(0);
    assertThat(delivery.getProperties().getMessageId()).isEqualTo(event.id().toString());
    Map<String, String> headers = RabbitHeaders.read(delivery);
    spans.consume("process shipment", headers);

    SpanData sent = spans.assertTraceChain("place shipment", send(), "process shipment", headers);
    assertSendAttributes(sent, "rabbitmq", topology.exchange(), event, 1);
    assertThat(
            sent.getAttributes()
                .get(AttributeKey.stringKey("messaging.rabbitmq.destination.routing_key")))
        .isEqualTo("shipment.placed");
  }

  @Test
  void aRetryIsASpanOfItsOwnWithItsAttemptNumberLinkedToTheSameWriter() throws Exception {
    OutboxMessage first = spans.recorded("place refund", "refund", "r-1", "{\"n\":2}");

    try (RabbitPublisher publisher = builder().build()) {
      // Nothing is bound to refund.*: the broker returns the mandatory message, a retryable
      // failure.
      spans.publish(publisher, List.of(first), Status.RETRYABLE_FAILURE);
      topology.bind("refund.*");
      spans.publish(publisher, List.of(retry(first)), Status.PUBLISHED);
    }
    assertThat(topology.takeIds(1, RECEIVE_TIMEOUT)).containsExactly(first.id().toString());

    List<SpanData> attempts = spans.assertOneSpanPerAttempt("place refund", send(), "retryable");
    assertThat(attempts.get(0).getStatus().getDescription()).contains("312", "NO_ROUTE");
  }

  @Test
  void aMessageTooLargeIsPermanentAndItsNeighbourPublished() throws Exception {
    Span writer = spans.start("place orders");
    OutboxMessage big =
        spans.recordedInside(writer, "order", "o-1", "{\"pad\":\"" + "x".repeat(64) + "\"}");
    OutboxMessage small = spans.recordedInside(writer, "order", "o-2", "{}");
    writer.end();

    try (RabbitPublisher publisher = builder().maxMessageBytes(64).build()) {
      spans.publish(publisher, List.of(big, small), Status.PERMANENT_FAILURE, Status.PUBLISHED);
    }

    List<SpanData> sends = spans.assertPermanentBesidePublished(big, small, "maxMessageBytes");
    assertSendAttributes(sends.get(1), "rabbitmq", topology.exchange(), small, 2);
  }

  @Test
  void anUnreachableBrokerIsBrokerUnavailableNotARetryableFailure() throws Exception {
    OutboxMessage event = spans.recorded("place order offline", "order", "o-1", "{\"n\":4}");

    try (RabbitPublisher publisher =
        RabbitPublisher.builder()
            .connectionFactory(RabbitTestBroker.factoryToAClosedPort())
            .exchange(topology.exchange())
            .build()) {
      spans.publish(publisher, List.of(event), Status.BROKER_UNAVAILABLE);
    }

    SpanData failed = spans.assertFailed(send(), "broker_unavailable");
    assertThat(failed.getStatus().getDescription()).doesNotContain("guest:");
  }
}
