package dev.txoutbox.itconsumer;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.GetResponse;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.rabbit.RabbitPublisher;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.SqsPublisher;
import dev.txoutbox.testing.TestMessages;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.testing.rabbit.RabbitBroker;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The testing kit's broker fixtures, from the BOM, as a user's test uses them: each starts (or, for
 * RabbitMQ, finds the broker the machine runs), a real txoutbox publisher publishes to it, the
 * event is read back, and the fixture stops.
 */
class BrokerFixturesTest {

  @Test
  void kafkaPublisherPublishesToEmbeddedKafka() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.builder().start();
    try {
      kafka.createTopic("invoice", 1, Map.of());
      OutboxMessage event = event("invoice");
      try (Publisher publisher =
          KafkaPublisher.builder().bootstrapServers(kafka.bootstrapServers()).build()) {
        assertThat(publisher.publish(List.of(event))).containsExactly(PublishResult.published());
      }
      List<ConsumerRecord<String, byte[]>> records =
          kafka.readAll("invoice", Duration.ofSeconds(30));
      assertThat(records).hasSize(1);
      assertThat(records.get(0).key()).isEqualTo("i-1");
      assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8))
          .isEqualTo(event.payload());
    } finally {
      kafka.close();
    }
    assertThat(kafka.isRunning()).isFalse();
  }

  @Test
  void sqsPublisherPublishesToElasticMq() throws Exception {
    try (ElasticMq sqs = ElasticMq.start()) {
      String queue = sqs.createQueue("invoices", false);
      OutboxMessage event = event("invoice");
      try (Publisher publisher =
          SqsPublisher.builder().client(sqs.client()).route("invoice", queue).build()) {
        assertThat(publisher.publish(List.of(event))).containsExactly(PublishResult.published());
      }
      assertThat(sqs.receive(queue, 1, Duration.ofSeconds(10)))
          .extracting(Message::body)
          .containsExactly(event.payload());
    }
  }

  @Test
  void rabbitPublisherPublishesToTheBrokerTheMachineRuns() throws Exception {
    RabbitBroker rabbit = RabbitBroker.fromEnvironment();
    assertThat(rabbit.isReachable(Duration.ofSeconds(5)))
        .as("%s must run for this test", rabbit)
        .isTrue();
    String queue = rabbit.declareQueue("invoices");
    try {
      // The default exchange routes by queue name; the default router's key is the event type.
      OutboxMessage event = event("invoice", queue);
      try (Publisher publisher = RabbitPublisher.builder().uri(rabbit.uri()).exchange("").build()) {
        assertThat(publisher.publish(List.of(event))).containsExactly(PublishResult.published());
      }
      List<GetResponse> got = rabbit.receive(queue, 1, Duration.ofSeconds(10));
      assertThat(got).hasSize(1);
      assertThat(new String(got.get(0).getBody(), StandardCharsets.UTF_8))
          .isEqualTo(event.payload());
      assertThat(got.get(0).getProps().getMessageId()).isEqualTo(event.id().toString());
    } finally {
      rabbit.deleteQueue(queue);
    }
  }

  private static OutboxMessage event(String aggregateType) {
    return event(aggregateType, aggregateType + ".issued");
  }

  private static OutboxMessage event(String aggregateType, String eventType) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId("i-1")
        .eventType(eventType)
        .payload("{\"total\": 42}")
        .build();
  }
}
