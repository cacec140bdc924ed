package dev.txoutbox.rabbit;

import com.rabbitmq.client.Delivery;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.contract.RunOrderContractTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * The Publisher contract against the real RabbitMQ. Contract events are routed by event type to a
 * fresh topic exchange whose queue is bound to {@code contract.#}; the permanently failing variant
 * has an event type nothing is bound to, with unroutable events configured as permanent failures.
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
    return new OutboxMessage(
        message.id(),
        message.sequence(),
        message.aggregateType(),
        message.aggregateId(),
        "unbound.nowhere",
        message.payload(),
        message.headers(),
        message.createdAt(),
        message.attempt());
  }

  static ReceivedMessage received(Delivery delivery) {
    return new ReceivedMessage(
        new String(delivery.getBody(), StandardCharsets.UTF_8), RabbitHeaders.read(delivery));
  }
}
