package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxMessage;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the RabbitMQ publisher tells tracing about a message: asked of the router only. */
class RabbitTracingAttributesTest {

  // Nothing listens on port 1: none of these methods may connect.
  private static RabbitPublisher publisher(RabbitRouter router) {
    return RabbitPublisher.builder().uri("amqp://127.0.0.1:1").router(router).build();
  }

  @Test
  void namesTheSystemTheExchangeAndTheRoutingKey() {
    OutboxMessage event = Messages.event("order.created");
    try (RabbitPublisher publisher =
        RabbitPublisher.builder().uri("amqp://127.0.0.1:1").exchange("shop").build()) {
      assertThat(publisher.messagingSystem()).isEqualTo("rabbitmq");
      assertThat(publisher.destinationName(event)).isEqualTo("shop");
      assertThat(publisher.messagingAttributes(event))
          .isEqualTo(Map.of("messaging.rabbitmq.destination.routing_key", "order.created"));
    }
  }

  @Test
  void theDefaultExchangeIsTheEmptyNameAndAnEmptyRoutingKeyIsLeftOut() {
    OutboxMessage event = Messages.event("order.created");
    try (RabbitPublisher toQueue =
            publisher(m -> Optional.of(new RabbitRouter.Route("", "orders")));
        RabbitPublisher fanout =
            publisher(m -> Optional.of(new RabbitRouter.Route("broadcast", "")))) {
      assertThat(toQueue.destinationName(event)).isEmpty();
      assertThat(toQueue.messagingAttributes(event))
          .containsEntry("messaging.rabbitmq.destination.routing_key", "orders");
      assertThat(fanout.destinationName(event)).isEqualTo("broadcast");
      assertThat(fanout.messagingAttributes(event)).isEmpty();
    }
  }

  @Test
  void aRouterThatFailsOrNamesNoRouteGivesNoDestination() {
    OutboxMessage event = Messages.event("order.created");
    try (RabbitPublisher throwing =
            publisher(
                m -> {
                  throw new IllegalStateException("boom");
                });
        RabbitPublisher empty = publisher(m -> Optional.empty())) {
      assertThat(throwing.destinationName(event)).isNull();
      assertThat(throwing.messagingAttributes(event)).isEmpty();
      assertThat(empty.destinationName(event)).isNull();
      assertThat(empty.messagingAttributes(event)).isEmpty();
    }
  }
}
