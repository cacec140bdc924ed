package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.ConnectionFactory;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

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
  void rejectsANonPositiveSendTimeout() {
    assertThatThrownBy(
            () ->
                RabbitPublisher.builder()
                    .uri("amqp://localhost")
                    .exchange("x")
                    .sendTimeout(Duration.ZERO)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sendTimeout must be positive but was 0ms");
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
        .hasMessage("maxMessageBytes must be positive but was 0");
  }

  @Test
  void refusesAnExchangeLongerThan255Bytes() {
    String exchange = "é".repeat(200); // 200 characters, 400 bytes

    assertThatThrownBy(
            () -> RabbitPublisher.builder().uri("amqp://localhost").exchange(exchange).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("exchange must be at most 255 UTF-8 bytes but was 400");
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
        .hasMessage(
            "uri must be an AMQP URI such as amqp://user:password@host:5672/vhost"
                + " but was 'http://app:****@localhost/vhost' (the scheme must be amqp or amqps)")
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
        .isEqualTo(
            "rabbitmq{endpoint=amqp://app@rabbit.example:5673/orders,"
                + " connectionName=txoutbox-publisher, exchange='outbox', routingKey=eventType,"
                + " declare=none, sendTimeout=30s, unroutableIsPermanent=false,"
                + " maxMessageBytes=134217728}");
    publisher.close();
  }

  @Test
  void describesACustomRouterAndTheDeclaredExchange() {
    RabbitPublisher publisher =
        RabbitPublisher.builder()
            .uri("amqps://app:s3cret-pw@rabbit.example/orders")
            .exchange("outbox")
            .router(m -> Optional.of(new RabbitRouter.Route("x", "y")))
            .declareExchange(BuiltinExchangeType.TOPIC, true)
            .connectionName("txoutbox-relay-orders")
            .sendTimeout(Duration.ofMillis(1500))
            .unroutableIsPermanent(true)
            .maxMessageBytes(1024)
            .build();

    assertThat(publisher.describe())
        .isEqualTo(
            "rabbitmq{endpoint=amqps://app@rabbit.example:5671/orders,"
                + " connectionName=txoutbox-relay-orders, router=custom,"
                + " declare=topic 'outbox' durable, sendTimeout=1.5s,"
                + " unroutableIsPermanent=true, maxMessageBytes=1024}");
    publisher.close();
  }

  @Test
  void buildingLogsNothing() {
    // The relay's start line carries describe(); the publisher adds no line of its own.
    Logger logger = (Logger) LoggerFactory.getLogger("dev.txoutbox.rabbit");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    try {
      RabbitPublisher.builder().uri("amqp://app:s3cret-pw@rabbit.example").exchange("x").build();
    } finally {
      logger.setLevel(level);
      logger.detachAppender(appender);
    }

    assertThat(appender.list).isEmpty();
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
          .hasMessageStartingWith(
              "uri must be an AMQP URI such as amqp://user:password@host:5672/vhost"
                  + " but was 'amqp://app:****@rabbit.example")
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
