package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxMessage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What the SQS publisher tells tracing about a message: asked of the routes, never SQS. */
class SqsTracingAttributesTest {

  private final FakeSqs sqs = new FakeSqs();

  @Test
  void aQueueNamedByUrlGivesItsNameAndUrl() {
    OutboxMessage order = Messages.message("order", "o-1", "{}");
    try (SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs)
            .route("order", "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo")
            .build()) {
      assertThat(publisher.messagingSystem()).isEqualTo("aws_sqs");
      assertThat(publisher.destinationName(order)).isEqualTo("orders.fifo");
      assertThat(publisher.messagingAttributes(order))
          .isEqualTo(
              Map.of(
                  "aws.sqs.queue.url",
                  "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo"));
      assertThat(sqs.lookups).isEmpty();
    }
  }

  @Test
  void aQueueNamedByNameGivesItsUrlOnlyOnceLookedUp() throws InterruptedException {
    OutboxMessage order = Messages.message("order", "o-1", "{}");
    try (SqsPublisher publisher =
        SqsPublisher.builder().client(sqs).route("order", "orders").build()) {
      assertThat(publisher.destinationName(order)).isEqualTo("orders");
      assertThat(publisher.messagingAttributes(order)).isEmpty();
      assertThat(sqs.lookups).isEmpty();

      publisher.publish(List.of(order));

      assertThat(publisher.messagingAttributes(order))
          .isEqualTo(Map.of("aws.sqs.queue.url", "https://sqs.test/000000000000/orders"));
    }
  }

  @Test
  void noRouteOrAFailingRouterGivesNoDestination() {
    OutboxMessage invoice = Messages.message("invoice", "i-1", "{}");
    try (SqsPublisher routes = SqsPublisher.builder().client(sqs).route("order", "orders").build();
        SqsPublisher throwing =
            SqsPublisher.builder()
                .client(sqs)
                .router(
                    m -> {
                      throw new IllegalStateException("boom");
                    })
                .build();
        SqsPublisher blank =
            SqsPublisher.builder().client(sqs).router(m -> Optional.of(" ")).build()) {
      assertThat(routes.destinationName(invoice)).isNull();
      assertThat(routes.messagingAttributes(invoice)).isEmpty();
      assertThat(throwing.destinationName(invoice)).isNull();
      assertThat(blank.destinationName(invoice)).isNull();
    }
  }
}
