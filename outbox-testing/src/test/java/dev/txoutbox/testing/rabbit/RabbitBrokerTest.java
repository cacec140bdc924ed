package dev.txoutbox.testing.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The RabbitMQ helper finds the broker the user runs (here the machine's service). */
class RabbitBrokerTest {

  private static final Map<String, String> NONE = Map.of();

  @Test
  void defaultsToTheLocalServiceWithTheGuestUser() {
    RabbitBroker broker = RabbitBroker.fromSettings(NONE::get, NONE::get);
    assertThat(broker.uri()).isEqualTo("amqp://guest:guest@127.0.0.1:5672/%2F");
    assertThat(broker.factory().getHost()).isEqualTo("127.0.0.1");
    assertThat(broker.factory().getPort()).isEqualTo(5672);
    assertThat(broker.factory().getVirtualHost()).isEqualTo("/");
  }

  @Test
  void thePropertyWinsOverTheVariablesAndTheNewVariableOverTheOldOne() {
    Map<String, String> props = Map.of(RabbitBroker.URI_PROPERTY, "amqp://a:pa@h1:1/v");
    Map<String, String> env =
        Map.of(
            RabbitBroker.URI_VARIABLE, "amqp://b:pb@h2:2/v",
            RabbitBroker.LEGACY_URI_VARIABLE, "amqp://c:pc@h3:3/v");
    assertThat(RabbitBroker.fromSettings(props::get, env::get).factory().getHost()).isEqualTo("h1");
    assertThat(RabbitBroker.fromSettings(NONE::get, env::get).factory().getHost()).isEqualTo("h2");
    Map<String, String> legacy = Map.of(RabbitBroker.LEGACY_URI_VARIABLE, "amqp://c:pc@h3:3/v");
    assertThat(RabbitBroker.fromSettings(NONE::get, legacy::get).factory().getHost())
        .isEqualTo("h3");
  }

  @Test
  void aBadUriIsRefusedNamingWhereItCameFromWithoutThePassword() {
    Map<String, String> env = Map.of(RabbitBroker.URI_VARIABLE, "http://app:s3cret@h:1/");
    assertThatThrownBy(() -> RabbitBroker.fromSettings(NONE::get, env::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TXOUTBOX_TEST_RABBIT_URI: uri must be an AMQP URI")
        .hasMessageContaining("the scheme must be amqp or amqps")
        .hasMessageNotContaining("s3cret");
    assertThat(RabbitBroker.at("amqp://app:s3cret@h:1/v").toString())
        .doesNotContain("s3cret")
        .contains("app");
  }

  @Test
  void reachesTheRunningBrokerAndNotAClosedPort() throws Exception {
    assertThat(RabbitBroker.fromEnvironment().isReachable(Duration.ofSeconds(5))).isTrue();
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    assertThat(
            RabbitBroker.at("amqp://guest:guest@127.0.0.1:" + closed + "/%2F")
                .isReachable(Duration.ofSeconds(2)))
        .isFalse();
    assertThatThrownBy(() -> RabbitBroker.fromEnvironment().isReachable(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be positive but was PT0S");
  }

  @Test
  void declaresAQueueReadsItBackAndDeletesIt() throws Exception {
    RabbitBroker broker = RabbitBroker.fromEnvironment();
    String queue = broker.declareQueue("txoutbox-kit");
    try {
      try (Connection connection = broker.factory().newConnection();
          Channel channel = connection.createChannel()) {
        channel.basicPublish("", queue, null, "hello".getBytes(StandardCharsets.UTF_8));
      }
      assertThat(broker.receive(queue, 1, Duration.ofSeconds(10)))
          .extracting(r -> new String(r.getBody(), StandardCharsets.UTF_8))
          .containsExactly("hello");
    } finally {
      broker.deleteQueue(queue);
    }
    try (Connection connection = broker.factory().newConnection()) {
      Channel channel = connection.createChannel(); // closed by the refusal below
      assertThatThrownBy(() -> channel.queueDeclarePassive(queue))
          .as("the queue is gone")
          .isInstanceOf(java.io.IOException.class);
    }
  }
}
