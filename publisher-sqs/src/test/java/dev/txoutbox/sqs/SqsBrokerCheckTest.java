package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.BrokerCheck.Status;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link SqsPublisher#checkBroker}, against ElasticMQ. */
class SqsBrokerCheckTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private ElasticMq sqs;

  @BeforeEach
  void start() {
    sqs = ElasticMq.start();
  }

  @AfterEach
  void stop() {
    sqs.close();
  }

  @Test
  void theRoutedQueuesByNameAndByUrlAreReachable() throws Exception {
    String byName = sqs.createQueue("by-name", false);
    String byUrl = sqs.queueUrl(sqs.createQueue("by-url", true));
    SqsPublisher publisher =
        SqsPublisher.builder().client(sqs.client()).route("a", byName).route("b", byUrl).build();

    BrokerCheck check = publisher.checkBroker(TIMEOUT);

    assertThat(check.status()).isEqualTo(Status.REACHABLE);
    assertThat(check.detail()).startsWith("SQS answered for ").contains(byName).contains(byUrl);
  }

  @Test
  void aQueueUrlThatDoesNotExistIsUnreachableNamingIt() throws Exception {
    String url = sqs.endpoint() + "/000000000000/no-such-queue";
    SqsPublisher publisher = SqsPublisher.builder().client(sqs.client()).route("a", url).build();

    BrokerCheck check = publisher.checkBroker(TIMEOUT);

    assertThat(check.status()).isEqualTo(Status.UNREACHABLE);
    assertThat(check.detail()).startsWith("SQS queue " + url + " failed: ");
  }

  @Test
  void aQueueThatDoesNotExistIsUnreachableNamingIt() throws Exception {
    SqsPublisher publisher =
        SqsPublisher.builder().client(sqs.client()).route("a", "no-such-queue").build();

    BrokerCheck check = publisher.checkBroker(TIMEOUT);

    assertThat(check.status()).isEqualTo(Status.UNREACHABLE);
    assertThat(check.detail()).startsWith("SQS queue no-such-queue failed: ");
  }

  @Test
  void underACustomRouterSqsIsAskedForOneQueue() throws Exception {
    SqsPublisher publisher =
        SqsPublisher.builder().client(sqs.client()).router(m -> Optional.of("any")).build();

    assertThat(publisher.checkBroker(TIMEOUT).status()).isEqualTo(Status.REACHABLE);
  }

  @Test
  void sqsThatDoesNotAnswerIsUnreachable() throws Exception {
    String queue = sqs.createQueue("gone", false);
    SqsPublisher publisher = SqsPublisher.builder().client(sqs.client()).route("a", queue).build();
    sqs.stopServer();

    BrokerCheck check = publisher.checkBroker(Duration.ofSeconds(2));

    assertThat(check.status()).isEqualTo(Status.UNREACHABLE);
    assertThat(check.detail()).startsWith("SQS queue " + queue + " ");
  }
}
