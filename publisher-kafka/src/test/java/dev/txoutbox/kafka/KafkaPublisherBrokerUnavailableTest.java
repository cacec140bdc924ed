package dev.txoutbox.kafka;

import static dev.txoutbox.kafka.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which outcome a real broker's failures get: a stopped broker is "broker unavailable" (no attempt
 * counted), a topic that does not exist while the cluster answers is a retryable failure of that
 * message, a record too large is permanent once the producer knows the topic. Own broker, with
 * topic auto-creation off, since it is stopped.
 */
class KafkaPublisherBrokerUnavailableTest {

  private static final String TOPIC = "outcomes.order";
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);
  private static final String TOO_LARGE = "{\"blob\":\"" + "z".repeat(20_000) + "\"}";

  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startBroker() {
    kafka = EmbeddedKafka.builder().brokerProperty("auto.create.topics.enable", "false").start();
    kafka.createTopic(TOPIC, 2, Map.of());
  }

  @AfterAll
  static void closeBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static KafkaPublisher publisher() {
    return KafkaPublisher.builder()
        .bootstrapServers(kafka.bootstrapServers())
        .topicPrefix("outcomes.")
        .sendTimeout(SEND_TIMEOUT)
        .producerProperty("max.request.size", 10_000)
        .build();
  }

  @Test
  void aTopicThatDoesNotExistIsARetryableFailureOfItsMessageWhileTheClusterAnswers()
      throws Exception {
    try (KafkaPublisher publisher = publisher()) {
      List<PublishResult> mixed =
          publisher.publish(List.of(message("nosuchtopic", "a"), message("order", "b")));
      List<PublishResult> alone = publisher.publish(List.of(message("nosuchtopic", "c")));

      assertThat(mixed)
          .extracting(PublishResult::status)
          .containsExactly(Status.RETRYABLE_FAILURE, Status.PUBLISHED);
      assertThat(mixed.get(0).reason()).contains("outcomes.nosuchtopic", "does it exist");
      assertThat(alone).extracting(PublishResult::status).containsExactly(Status.RETRYABLE_FAILURE);
    }
  }

  @Test
  void aStoppedBrokerIsBrokerUnavailableForAWarmAndAColdProducerAndATooLargeRecordWaitsForIt()
      throws Exception {
    try (KafkaPublisher warm = publisher();
        KafkaPublisher cold = publisher()) {
      assertThat(warm.publish(List.of(message("order", "before"))))
          .extracting(PublishResult::status)
          .containsExactly(Status.PUBLISHED);

      kafka.stop();
      List<PublishResult> warmDuring;
      List<PublishResult> coldDuring;
      try {
        warmDuring = warm.publish(batch("w1", "w2", "w3"));
        coldDuring =
            cold.publish(List.of(message("order", "big", TOO_LARGE), message("order", "c1")));
      } finally {
        kafka.start();
      }

      // The warm producer knew the partitions: its records expired after delivery.timeout.ms.
      assertThat(warmDuring)
          .extracting(PublishResult::status)
          .containsOnly(Status.BROKER_UNAVAILABLE);
      assertThat(warmDuring.get(0).reason()).startsWith("TimeoutException");
      // A cold producer first waits for metadata, even for a too-large record: unavailable, and
      // the rest of the batch is not handed over.
      assertThat(coldDuring)
          .extracting(PublishResult::status)
          .containsOnly(Status.BROKER_UNAVAILABLE);
      assertThat(coldDuring.get(0).reason()).contains("not present in metadata");
      assertThat(coldDuring.get(1).reason()).startsWith("not sent");
      // Back: both producers deliver again once reconnected, and the record is too large after all.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> warm.publish(batch("after")).get(0).isPublished());
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> !cold.publish(batch("c2")).get(0).isBrokerUnavailable());
      assertThat(cold.publish(List.of(message("order", "big", TOO_LARGE), message("order", "c3"))))
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE, Status.PUBLISHED);
    }
  }

  private static List<OutboxMessage> batch(String... aggregateIds) {
    return Arrays.stream(aggregateIds).map(id -> message("order", id)).toList();
  }
}
