package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class KafkaPublisherBuilderTest {

  @Test
  void requiresBootstrapServers() {
    assertThatThrownBy(() -> KafkaPublisher.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bootstrapServers");
  }

  @Test
  void rejectsNullsNamingTheOption() {
    KafkaPublisher.Builder builder = KafkaPublisher.builder();

    assertThatThrownBy(() -> builder.bootstrapServers(null)).hasMessage("bootstrapServers");
    assertThatThrownBy(() -> builder.router(null)).hasMessage("router");
    assertThatThrownBy(() -> builder.topicPrefix(null)).hasMessage("topicPrefix");
    assertThatThrownBy(() -> builder.topics(null)).hasMessage("topics");
    assertThatThrownBy(() -> builder.sendTimeout(null)).hasMessage("sendTimeout");
    assertThatThrownBy(() -> builder.producerFactory(null)).hasMessage("producerFactory");
    assertThatThrownBy(() -> builder.producerProperty("acks", null)).hasMessageContaining("acks");
  }

  @Test
  void rejectsANonPositiveSendTimeout() {
    assertThatThrownBy(() -> KafkaPublisher.builder().sendTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sendTimeout must be positive but was 0ms");
    assertThatThrownBy(() -> KafkaPublisher.builder().sendTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sendTimeout");
  }

  @Test
  void routingOptionsAreExclusive() {
    assertThatThrownBy(
            () ->
                KafkaPublisher.builder()
                    .bootstrapServers("k:9092")
                    .topicPrefix("shop.")
                    .topics(Map.of("order", "orders"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topicPrefix")
        .hasMessageContaining("topics");
  }

  @Test
  void rejectsAnIllegalTopicPrefixOrMappedTopic() {
    assertThatThrownBy(
            () -> KafkaPublisher.builder().bootstrapServers("k:9092").topicPrefix("shop/").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topicPrefix");
    assertThatThrownBy(
            () ->
                KafkaPublisher.builder()
                    .bootstrapServers("k:9092")
                    .topics(Map.of("order", "orders and more"))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topics")
        .hasMessageContaining("order");
  }

  @Test
  void reportsAnInvalidProducerSettingAsIllegalArgument() {
    assertThatThrownBy(
            () ->
                KafkaPublisher.builder()
                    .bootstrapServers("k:9092")
                    .producerProperty("compression.type", "rar")
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("compression.type");
  }

  @Test
  void givesTheFactoryTheEffectiveConfiguration() {
    AtomicReference<Map<String, Object>> seen = new AtomicReference<>();

    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers("k:9092")
            .producerConfig(Map.of("linger.ms", 10, "acks", "all"))
            .producerFactory(
                config -> {
                  seen.set(config);
                  return new MockProducer<>();
                })
            .build()) {
      assertThat(publisher.name()).isEqualTo("kafka");
    }

    assertThat(seen.get())
        .containsEntry("bootstrap.servers", "k:9092")
        .containsEntry("linger.ms", 10)
        .containsEntry("enable.idempotence", true);
  }

  @Test
  void aBuilderChangedLaterDoesNotChangeTheBuiltPublisher() {
    AtomicReference<Map<String, Object>> seen = new AtomicReference<>();
    KafkaPublisher.Builder builder =
        KafkaPublisher.builder()
            .bootstrapServers("k:9092")
            .producerFactory(
                config -> {
                  seen.set(config);
                  return new MockProducer<>();
                });

    try (KafkaPublisher publisher = builder.build()) {
      builder.producerProperty("compression.type", "zstd");
      assertThat(seen.get()).doesNotContainKey("compression.type");
      assertThatThrownBy(() -> seen.get().put("compression.type", "lz4"))
          .isInstanceOf(UnsupportedOperationException.class);
    }
  }

  @Test
  void describesTheEffectiveConfigurationWithoutCredentialsAndLogsNothingWhenBuilt() {
    Logger logger = (Logger) LoggerFactory.getLogger("dev.txoutbox.kafka");
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers("k:9092")
            .topicPrefix("shop.")
            .sendTimeout(Duration.ofSeconds(20))
            .producerConfig(
                Map.of(
                    "security.protocol", "SASL_SSL",
                    "sasl.mechanism", "PLAIN",
                    "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required"
                            + " username=\"svc\" password=\"s3cret-jaas\";",
                    "ssl.truststore.password", "s3cret-store"))
            .producerFactory(config -> new MockProducer<>())
            .build()) {
      // The relay's start line prints describe(); the publisher itself logs nothing when built.
      assertThat(appender.list).isEmpty();
      assertThat(publisher.describe())
          .contains(
              "routing to topic 'shop.<aggregate type>'",
              "sendTimeout 20s",
              "max.block.ms 20000",
              "delivery.timeout.ms 20000",
              "bootstrap.servers=k:9092",
              "security.protocol=SASL_SSL",
              "sasl.jaas.config=****",
              "ssl.truststore.password=****")
          .doesNotContain("s3cret");
    } finally {
      logger.detachAppender(appender);
    }
    assertThat(appender.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .noneMatch(line -> line.contains("s3cret"));
  }
}
