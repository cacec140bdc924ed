package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.ConnectionFactory;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Configuration is validated in {@code build()}, with messages naming the option. */
class RabbitPublisherBuilderTest {

  @Test
  void requiresABroker() {
    assertThatThrownBy(() -> RabbitPublisher.builder().exchange("x").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("connectionFactory or uri");
  }

  @Test
  void refusesBothAFactoryAndAUri() {
    assertThatThrownBy(
            () ->
                RabbitPublisher.builder()
                    .connectionFactory(new ConnectionFactory())
                    .uri("amqp://localhost")
                    .exchange("x")
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not both");
  }

  @Test
  void requiresAnExchangeOrARouter() {
    assertThatThrownBy(() -> RabbitPublisher.builder().uri("amqp://localhost").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("exchange or router");
  }

  @Test
  void declaringNeedsAnExchangeName() {
    assertThatThrownBy(
            () ->
                RabbitPublisher.builder()
                    .uri("amqp://localhost")
                    .router(m -> Optional.of(new RabbitRouter.Route("x", "y")))
                    .declareExchange(BuiltinExchangeType.TOPIC, true)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("declareExchange");
  }

  @Test
  void rejectsANonPositiveConfirmTimeout() {
    assertThatThrownBy(
            () ->
                RabbitPublisher.builder()
                    .uri("amqp://localhost")
                    .exchange("x")
                    .confirmTimeout(Duration.ZERO)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("confirmTimeout");
  }

  @Test
  void rejectsANonPositiveMaxMessageSize() {
    assertThatThrownBy(
            () ->
                RabbitPublisher.builder()
                    .uri("amqp://localhost")
                    .exchange("x")
                    .maxMessageBytes(0)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxMessageBytes");
  }

  @Test
  void rejectsNullOptionsAtOnce() {
    assertThatThrownBy(() -> RabbitPublisher.builder().exchange(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("exchange");
  }

  @Test
  void invalidUriIsReportedWithoutItsPassword() {
    assertThatThrownBy(
            () ->
                RabbitPublisher.builder()
                    .uri("http://app:s3cret-pw@localhost/vhost")
                    .exchange("x")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri")
        .hasMessageContaining("app:****@localhost")
        .hasMessageNotContaining("s3cret-pw")
        .hasNoCause();
  }

  @Test
  void describesItsConfigurationWithoutThePassword() {
    RabbitPublisher publisher =
        RabbitPublisher.builder()
            .uri("amqp://app:s3cret-pw@rabbit.example:5673/orders")
            .exchange("outbox")
            .build();

    assertThat(publisher.toString())
        .contains("amqp://app@rabbit.example:5673/orders")
        .doesNotContain("s3cret-pw");
    assertThat(publisher.describe()) // what the relay logs at start
        .contains("amqp://app@rabbit.example:5673/orders")
        .doesNotContain("s3cret-pw");
    publisher.close();
  }

  @Test
  void rejectsAPasswordWithUnencodedDelimitersWithoutShowingIt() {
    for (String password : new String[] {"pa/ss", "pa#ss", "pa?ss", "p@ss"}) {
      assertThatThrownBy(
              () ->
                  RabbitPublisher.builder()
                      .uri("amqp://app:" + password + "@rabbit.example:5672/orders")
                      .exchange("outbox")
                      .build())
          .as(password)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("uri is not a valid AMQP URI: amqp://app:****@rabbit.example")
          .hasMessageContaining("percent-encode")
          .hasMessageNotContaining(password)
          .hasNoCause();
    }
    // Encoded, the same password is accepted and described without it.
    RabbitPublisher encoded =
        RabbitPublisher.builder()
            .uri("amqp://app:pa%2Fss@rabbit.example:5672/orders")
            .exchange("outbox")
            .build();
    assertThat(encoded.describe()).doesNotContain("pa%2Fss").doesNotContain("pa/ss");
    encoded.close();
  }

  @Test
  void leavesTheCallersFactoryUntouched() {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setAutomaticRecoveryEnabled(true);

    RabbitPublisher.builder().connectionFactory(factory).exchange("x").build().close();

    assertThat(factory.isAutomaticRecoveryEnabled()).isTrue();
  }
}
