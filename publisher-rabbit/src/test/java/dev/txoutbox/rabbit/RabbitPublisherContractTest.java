package dev.txoutbox.rabbit;

import com.rabbitmq.client.Delivery;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.contract.RunOrderContractTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;

/**
 * The Publisher contract against the real RabbitMQ. Contract events are routed by event type to a
 * fresh topic exchange whose queue is bound to {@code contract.#}; the permanently failing variant
 * has an event type nothing is bound to, with unroutable events configured as permanent failures;
 * the oversized one, headers larger than the connection's {@code frame_max}.
 */
class RabbitPublisherContractTest extends RunOrderContractTest {

  private TestTopology topology;

  @Override
  protected Publisher createPublisher() throws Exception {
    topology = TestTopology.create("contract", "contract.#");
    return RabbitPublisher.builder()
        .connectionFactory(RabbitTestBroker.factory())
        .exchange(topology.exchange())
        .unroutableIsPermanent(true)
        .connectionName("txoutbox-test-contract")
        .build();
  }

  @AfterEach
  void deleteTopology() throws Exception {
    topology.close();
  }

  @Override
  protected List<ReceivedMessage> receive(int count, Duration timeout) throws Exception {
    return topology.take(count, timeout).stream()
        .map(RabbitPublisherContractTest::received)
        .toList();
  }

  @Override
  protected OutboxMessage permanentlyFailing(OutboxMessage message) {
    return message.toBuilder().eventType("unbound.nowhere").build();
  }

  /**
   * Headers of 20 x 8 KiB (the writer accepts 64): a content header over RabbitMQ's default {@code
   * frame_max} of 131,072 bytes.
   */
  @Override
  protected OutboxMessage oversized(OutboxMessage message) {
    Map<String, String> headers = new HashMap<>(message.headers());
    for (int i = 0; i < 20; i++) {
      headers.put("large-" + i, "v".repeat(8 * 1024));
    }
    return message.toBuilder().headers(headers).build();
  }

  static ReceivedMessage received(Delivery delivery) {
    return new ReceivedMessage(
        new String(delivery.getBody(), StandardCharsets.UTF_8), RabbitHeaders.read(delivery));
  }
}
