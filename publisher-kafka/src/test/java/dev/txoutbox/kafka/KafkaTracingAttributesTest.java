package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxMessage;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the Kafka publisher tells tracing about a message: asked of the router, never Kafka. */
class KafkaTracingAttributesTest {

  private static KafkaPublisher publisher(KafkaRouter router) {
    // No broker listens there: none of these methods may contact one.
    return KafkaPublisher.builder().bootstrapServers("127.0.0.1:1").router(router).build();
  }

  @Test
  void namesTheSystemTheTopicAndTheKey() {
    try (KafkaPublisher publisher =
        KafkaPublisher.builder().bootstrapServers("127.0.0.1:1").topicPrefix("shop.").build()) {
      OutboxMessage order = Messages.message("order", "o-7");

      assertThat(publisher.messagingSystem()).isEqualTo("kafka");
      assertThat(publisher.destinationName(order)).isEqualTo("shop.order");
      assertThat(publisher.messagingAttributes(order))
          .isEqualTo(Map.of("messaging.kafka.message.key", "o-7"));
    }
  }

  @Test
  void aRouterThatFailsOrNamesNoLegalTopicGivesNoDestination() {
    OutboxMessage order = Messages.message("order", "o-7");
    try (KafkaPublisher throwing =
            publisher(
                m -> {
                  throw new IllegalStateException("boom");
                });
        KafkaPublisher empty = publisher(m -> Optional.empty());
        KafkaPublisher nulls = publisher(m -> null);
        KafkaPublisher illegal = publisher(m -> Optional.of("no spaces allowed"))) {
      assertThat(throwing.destinationName(order)).isNull();
      assertThat(empty.destinationName(order)).isNull();
      assertThat(nulls.destinationName(order)).isNull();
      assertThat(illegal.destinationName(order)).isNull();
    }
  }
}
