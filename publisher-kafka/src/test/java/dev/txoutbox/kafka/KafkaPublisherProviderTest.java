package dev.txoutbox.kafka;

import static dev.txoutbox.kafka.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSetting.Type;
import dev.txoutbox.spi.PublisherSettings;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.testing.kafka.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The provider the standalone relay and the benchmarks find: its settings, errors and publisher.
 */
class KafkaPublisherProviderTest {

  private static final String CLIENT = "txoutbox-relay-provider-test";

  private final KafkaPublisherProvider provider = new KafkaPublisherProvider();

  private Publisher create(Map<String, String> values) {
    return provider.create(PublisherSettings.of(provider, CLIENT, values));
  }

  @Test
  void serviceLoaderFindsExactlyThisProviderInTheModule() {
    assertThat(ServiceLoader.load(PublisherProvider.class).stream())
        .extracting(ServiceLoader.Provider::type)
        .containsExactly(KafkaPublisherProvider.class);
    assertThat(provider.name()).isEqualTo("kafka");
  }

  @Test
  void declaresEverySettingItReadsWithItsTypeAndDefault() {
    assertThat(provider.settings())
        .extracting(PublisherSetting::name, PublisherSetting::type, PublisherSetting::defaultValue)
        .containsExactly(
            tuple("bootstrap-servers", Type.TEXT, null),
            tuple("topic-prefix", Type.TEXT, null),
            tuple("topic", Type.MAP, null),
            tuple("producer", Type.MAP, null),
            tuple("send-timeout", Type.DURATION, "30s"));
  }

  @Test
  void aMissingBootstrapServersNamesTheFlag() {
    assertThatThrownBy(() -> create(Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--bootstrap-servers ")
        .hasMessageEndingWith("must be given for publisher kafka but was not");
    assertThatThrownBy(() -> create(Map.of("producer.bootstrap.servers", " ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--bootstrap-servers (or bootstrap.servers in --producer) must be set but was not");
  }

  @Test
  void theBuildersErrorsNameTheFlags() {
    assertThatThrownBy(() -> create(Map.of("bootstrap-servers", "k:9092", "send-timeout", "0ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--send-timeout must be positive but was 0ms");
    assertThatThrownBy(
            () ->
                create(
                    Map.of(
                        "bootstrap-servers", "a:9092",
                        "producer.bootstrap.servers", "b:9092")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--bootstrap-servers must be the same as bootstrap.servers in --producer (b:9092) but"
                + " was a:9092; set one of them");
    assertThatThrownBy(() -> create(Map.of("bootstrap-servers", "k:9092", "topic-prefix", "shop/")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--topic-prefix 'shop/' may contain only");
    assertThatThrownBy(
            () -> create(Map.of("bootstrap-servers", "k:9092", "topic.order", "orders and more")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--topic: aggregate type 'order'");
    assertThatThrownBy(
            () -> create(Map.of("bootstrap-servers", "k:9092", "producer.transactional.id", "tx")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--producer must not set transactional.id");
  }

  @Test
  void anUnknownSettingIsRefused() {
    assertThatThrownBy(
            () ->
                PublisherSettings.of(
                    provider,
                    CLIENT,
                    Map.of("bootstrap-servers", "k:9092", "amqp-uri", "amqp://h")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kafka")
        .hasMessageContaining("'amqp-uri'");
  }

  @Test
  void aPublisherFromTheProviderPublishesToTheBroker() throws Exception {
    EmbeddedKafka kafka = SharedKafka.broker();
    kafka.createTopic("provided.order", 1, Map.of());
    OutboxMessage event = message("order", "o-1");

    try (Publisher publisher =
        create(
            Map.of(
                "bootstrap-servers", kafka.bootstrapServers(),
                "topic-prefix", "provided.",
                "send-timeout", "20s"))) {
      assertThat(publisher).isInstanceOf(KafkaPublisher.class);
      assertThat(publisher.describe())
          .contains("sendTimeout 20s", "client.id=" + CLIENT, "provided.<aggregate type>");
      assertThat(publisher.publish(List.of(event)))
          .singleElement()
          .matches(PublishResult::isPublished);
    }

    List<ConsumerRecord<String, byte[]>> records =
        kafka.read("provided.order", 1, Duration.ofSeconds(30));
    assertThat(records).hasSize(1);
    ConsumerRecord<String, byte[]> record = records.get(0);
    assertThat(record.key()).isEqualTo("o-1");
    assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo(event.payload());
    assertThat(
            new String(
                record.headers().lastHeader(OutboxHeaders.EVENT_ID).value(),
                StandardCharsets.UTF_8))
        .isEqualTo(event.id().toString());
  }
}
