package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.BrokerCheck.Status;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@link RabbitPublisher#checkBroker}, against the real broker. */
class RabbitBrokerCheckTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final String connectionName = "txoutbox-test-check-" + UUID.randomUUID();

  private RabbitPublisher publisher(ConnectionFactory factory) {
    return RabbitPublisher.builder()
        .connectionFactory(factory)
        .exchange("unused")
        .connectionName(connectionName)
        .build();
  }

  @Test
  void aBrokerThatAcceptsTheCredentialsIsReachableAndTheCheckLeavesNoConnection() throws Exception {
    try (RabbitPublisher publisher = publisher(RabbitTestBroker.factory())) {
      BrokerCheck check = publisher.checkBroker(TIMEOUT);

      assertThat(check.status()).isEqualTo(Status.REACHABLE);
      assertThat(check.detail())
          .contains("amqp://guest@127.0.0.1:5672")
          .contains("accepted the connection and its credentials")
          .doesNotContain("guest:guest");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> RabbitTestBroker.connectionPid(connectionName + "-check").isEmpty());
      assertThat(RabbitTestBroker.connectionPid(connectionName))
          .as("the publisher's own connection is not opened by the check")
          .isEmpty();
    }
  }

  @Test
  void aWrongPasswordIsUnreachableAndTheReasonNamesAuthenticationWithoutThePassword()
      throws Exception {
    ConnectionFactory factory = RabbitTestBroker.factory();
    factory.setPassword("wrong-S3CRET");
    try (RabbitPublisher publisher = publisher(factory)) {
      BrokerCheck check = publisher.checkBroker(TIMEOUT);

      assertThat(check.status()).isEqualTo(Status.UNREACHABLE);
      assertThat(check.detail())
          .contains("refused the credentials (authentication failed)")
          .contains("ACCESS_REFUSED")
          .doesNotContain("S3CRET");
    }
  }

  @Test
  void aPortNobodyListensOnIsUnreachable() throws Exception {
    ConnectionFactory factory = RabbitTestBroker.factoryToAClosedPort();
    try (RabbitPublisher publisher = publisher(factory)) {
      BrokerCheck check = publisher.checkBroker(TIMEOUT);

      assertThat(check.status()).isEqualTo(Status.UNREACHABLE);
      assertThat(check.detail())
          .contains("cannot reach RabbitMQ at")
          .contains(":" + factory.getPort());
    }
  }
}
