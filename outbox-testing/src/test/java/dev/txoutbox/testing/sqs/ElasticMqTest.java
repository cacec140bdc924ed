package dev.txoutbox.testing.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;

/** The SQS fixture serves a real SQS API, refuses connections while stopped, keeps its queues. */
class ElasticMqTest {

  @Test
  void servesQueuesAndKeepsThemAcrossAServerStop() {
    try (ElasticMq sqs = ElasticMq.start()) {
      String queue = sqs.createQueue("orders", true);
      assertThat(queue).startsWith("orders-").endsWith(".fifo");
      String url = sqs.queueUrl(queue);
      sqs.client()
          .sendMessage(
              r ->
                  r.queueUrl(url)
                      .messageBody("created")
                      .messageGroupId("order-1")
                      .messageDeduplicationId("e-1"))
          .join();

      sqs.stopServer();
      assertThatThrownBy(() -> sqs.client().getQueueUrl(r -> r.queueName(queue)).join())
          .isInstanceOf(CompletionException.class);
      sqs.startServer();

      assertThat(sqs.approximateDepth(queue)).isEqualTo(1);
      assertThat(sqs.receive(queue, 1, Duration.ofSeconds(10)))
          .extracting(Message::body)
          .containsExactly("created");
      assertThat(sqs.approximateDepth(queue)).isZero();
      assertThat(sqs.endpoint().toString()).startsWith("http://127.0.0.1:");
    }
  }
}
