package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.contract.PublisherContractTest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The Publisher contract against ElasticMQ; each test gets a fresh standard queue, by name. */
class SqsPublisherContractTest extends PublisherContractTest {

  private static ElasticMq sqs;
  private String queue;

  @BeforeAll
  static void startElasticMq() {
    sqs = ElasticMq.start();
  }

  @AfterAll
  static void stopElasticMq() {
    sqs.close();
  }

  @Override
  protected Publisher createPublisher() {
    queue = sqs.createQueue("contract", false);
    return SqsPublisher.builder().client(sqs.client()).route(AGGREGATE_TYPE, queue).build();
  }

  @Override
  protected List<ReceivedMessage> receive(int count, Duration timeout) {
    return sqs.receive(queue, count, timeout).stream()
        .map(m -> new ReceivedMessage(m.body(), SqsHeaders.read(m.messageAttributes())))
        .toList();
  }

  /** A payload one byte over SQS's 1 MiB limit on its own, before any attribute. */
  @Override
  protected OutboxMessage permanentlyFailing(OutboxMessage m) {
    String payload = "\"" + "x".repeat(SqsPublisher.SQS_MAX_BYTES - 1) + "\"";
    return new OutboxMessage(
        m.id(),
        m.sequence(),
        m.aggregateType(),
        m.aggregateId(),
        m.eventType(),
        payload,
        m.headers(),
        m.createdAt(),
        m.attempt());
  }
}
