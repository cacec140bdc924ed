package dev.txoutbox.rabbit;

import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.spi.BrokerCheck;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * {@link RabbitPublisher#checkBroker}: opens a connection of its own with the publisher's settings
 * (address, TLS, credentials, virtual host), bounded by the check's timeout, and closes it. The
 * publisher's own connection is left alone. Thread-safe (stateless).
 */
final class RabbitBrokerCheck {

  private RabbitBrokerCheck() {}

  static BrokerCheck run(RabbitPublisherConfig config, Duration timeout) {
    int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    ConnectionFactory factory = config.connectionFactory().clone();
    factory.setConnectionTimeout(millis);
    factory.setHandshakeTimeout(millis);
    factory.setChannelRpcTimeout(millis);
    try {
      Connection connection = factory.newConnection(config.connectionName() + "-check");
      int frameMax = connection.getFrameMax();
      connection.abort(millis);
      return BrokerCheck.reachable(
          "RabbitMQ at "
              + config.endpoint()
              + " accepted the connection and its credentials (frame_max "
              + frameMax
              + ")");
    } catch (AuthenticationFailureException e) {
      return BrokerCheck.unreachable(
          "RabbitMQ at "
              + config.endpoint()
              + " refused the credentials (authentication failed): "
              + e.getMessage(),
          e);
    } catch (IOException | TimeoutException | RuntimeException e) {
      return BrokerCheck.unreachable(
          RabbitFailureClassifier.unreachable(config.endpoint(), e).reason(), e);
    }
  }
}
