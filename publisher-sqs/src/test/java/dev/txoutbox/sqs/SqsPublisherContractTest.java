package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.contract.RunOrderContractTest;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The Publisher contract, run order included, against ElasticMQ; each test gets a fresh FIFO queue,
 * by name, whose message groups are the aggregates.
 */
class SqsPublisherContractTest extends RunOrderContractTest {

  /** A body holding this is refused by SQS itself, entry by entry ({@link ElasticMq}). */
  private static final String REFUSED_MARKER = "refused-by-sqs";

  private static ElasticMq sqs;
  private String queue;

  @BeforeAll
  static void startElasticMq() {
    sqs = ElasticMq.start();
    sqs.rejectEntriesContaining(REFUSED_MARKER);
  }

  @AfterAll
  static void stopElasticMq() {
    sqs.close();
  }

  @Override
  protected Publisher createPublisher() {
    queue = sqs.createQueue("contract", true);
    return SqsPublisher.builder().client(sqs.client()).route(AGGREGATE_TYPE, queue).build();
  }

  @Override
  protected List<ReceivedMessage> receive(int count, Duration timeout) {
    return sqs.receive(queue, count, timeout).stream()
        .map(m -> new ReceivedMessage(m.body(), SqsHeaders.read(m.messageAttributes())))
        .toList();
  }

  /**
   * A message the publisher's own checks let through and SQS refuses as the sender's fault, in its
   * batch entry alone: its body reaches SQS with a character SQS does not accept ({@code
   * InvalidMessageContents}), so it shares a request with the messages around it.
   */
  @Override
  protected OutboxMessage permanentlyFailing(OutboxMessage m) {
    return m.toBuilder().payload("{\"" + REFUSED_MARKER + "\":" + m.sequence() + "}").build();
  }

  /** A payload over SQS's message size of 1 MiB, refused before sending. */
  @Override
  protected OutboxMessage oversized(OutboxMessage m) {
    return m.toBuilder()
        .payload("{\"padding\":\"" + "x".repeat(SqsPublisher.SQS_MAX_BYTES) + "\"}")
        .build();
  }
}
