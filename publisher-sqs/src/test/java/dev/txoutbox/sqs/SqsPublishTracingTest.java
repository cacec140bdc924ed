package dev.txoutbox.sqs;

import static dev.txoutbox.spans.PublishSpans.assertSendAttributes;
import static dev.txoutbox.spans.PublishSpans.retry;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spans.PublishSpans;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.testing.sqs.ElasticMq;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * Core's publish spans around the SQS publisher and a real SQS API (ElasticMQ), as {@code
 * KafkaPublishTracingTest} runs them through Kafka ({@link PublishSpans}): writer span, send span
 * linked to it, consumer span continued from the received message's attributes as the send span's
 * child; one span per attempt; each outcome.
 */
class SqsPublishTracingTest {

  private static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(30);

  private static ElasticMq sqs;

  private final PublishSpans spans = new PublishSpans();

  @BeforeAll
  static void start() {
    sqs = ElasticMq.start();
  }

  @AfterAll
  static void stop() {
    sqs.close();
  }

  @AfterEach
  void closeTracing() {
    spans.close();
    sqs.beforeBatchRequest(n -> {});
    sqs.rejectEntriesContaining(null);
  }

  private static SqsPublisher publisherTo(String aggregateType, String route) {
    return SqsPublisher.builder().client(sqs.client()).route(aggregateType, route).build();
  }

  @Test
  void writerSpanLinksToSendSpanWhoseChildIsTheConsumerSpan() throws Exception {
    String queue = sqs.createQueue("traced-shipment", false);
    String url = sqs.queueUrl(queue);
    OutboxMessage event = spans.recorded("place shipment", "shipment", "s-1", "{\"n\":1}");

    try (SqsPublisher publisher = publisherTo("shipment", url)) {
      spans.publish(publisher, List.of(event), Status.PUBLISHED);
    }
    Message received = sqs.receive(queue, 1, RECEIVE_TIMEOUT).get(0);
    Map<String, String> headers = SqsHeaders.read(received);
    spans.consume("process " + queue, headers);

    SpanData sent =
        spans.assertTraceChain("place shipment", "send " + queue, "process " + queue, headers);
    assertSendAttributes(sent, "aws_sqs", queue, event, 1);
    assertThat(sent.getAttributes().get(AttributeKey.stringKey("aws.sqs.queue.url")))
        .isEqualTo(url);
  }

  @Test
  void aFifoQueueCarriesTheSendSpansContextToo() throws Exception {
    String queue = sqs.createQueue("traced-order", true);
    OutboxMessage event = spans.recorded("place order", "order", "o-1", "{\"n\":2}");

    try (SqsPublisher publisher = publisherTo("order", queue)) {
      spans.publish(publisher, List.of(event), Status.PUBLISHED);
    }
    Map<String, String> headers = SqsHeaders.read(sqs.receive(queue, 1, RECEIVE_TIMEOUT).get(0));
    spans.consume("process " + queue, headers);

    SpanData sent =
        spans.assertTraceChain("place order", "send " + queue, "process " + queue, headers);
    assertSendAttributes(sent, "aws_sqs", queue, event, 1);
  }

  @Test
  void aRetryIsASpanOfItsOwnWithItsAttemptNumberLinkedToTheSameWriter() throws Exception {
    String queue = sqs.createQueue("traced-refund", false);
    OutboxMessage first = spans.recorded("place refund", "refund", "r-1", "{\"n\":3}");
    AtomicBoolean failNext = new AtomicBoolean(true);
    // The client fails the first SendMessageBatch before it leaves: a retryable failure.
    sqs.beforeBatchRequest(
        n -> {
          if (failNext.getAndSet(false)) {
            throw new IllegalStateException("the test fails this request");
          }
        });

    try (SqsPublisher publisher = publisherTo("refund", queue)) {
      spans.publish(publisher, List.of(first), Status.RETRYABLE_FAILURE);
      spans.publish(publisher, List.of(retry(first)), Status.PUBLISHED);
    }
    assertThat(sqs.receive(queue, 1, RECEIVE_TIMEOUT))
        .extracting(m -> SqsHeaders.read(m).get(OutboxHeaders.EVENT_ID))
        .containsExactly(first.id().toString());

    List<SpanData> attempts =
        spans.assertOneSpanPerAttempt("place refund", "send " + queue, "retryable");
    assertThat(attempts.get(0).getStatus().getDescription())
        .contains(queue, "the test fails this request");
  }

  @Test
  void anEntrySqsRefusesIsPermanentAndItsNeighbourPublished() throws Exception {
    String queue = sqs.createQueue("traced-invoice", false);
    Span writer = spans.start("place invoices");
    OutboxMessage refused = spans.recordedInside(writer, "invoice", "i-1", "{\"reject-me\":1}");
    OutboxMessage accepted = spans.recordedInside(writer, "invoice", "i-2", "{\"n\":4}");
    writer.end();
    sqs.rejectEntriesContaining("reject-me");

    try (SqsPublisher publisher = publisherTo("invoice", queue)) {
      spans.publish(
          publisher, List.of(refused, accepted), Status.PERMANENT_FAILURE, Status.PUBLISHED);
    }

    List<SpanData> sends =
        spans.assertPermanentBesidePublished(refused, accepted, "InvalidMessageContents");
    assertSendAttributes(sends.get(1), "aws_sqs", queue, accepted, 2);
  }

  @Test
  void sqsDownIsBrokerUnavailableNotARetryableFailure() throws Exception {
    String queue = sqs.createQueue("traced-offline", false);
    String url = sqs.queueUrl(queue);
    OutboxMessage event = spans.recorded("place order offline", "order", "o-1", "{\"n\":5}");

    sqs.stopServer();
    try (SqsPublisher publisher = publisherTo("order", url)) {
      spans.publish(publisher, List.of(event), Status.BROKER_UNAVAILABLE);
    } finally {
      sqs.startServer();
    }

    spans.assertFailed("send " + queue, "broker_unavailable");
  }
}
