package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.rabbit.RabbitPublisher;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.SqsPublisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublishersTest {

  @Test
  void flagsOverrideTheFileAndSecretsAreMaskedInTheDescription(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("rabbit.properties"),
            "amqp-uri=amqp://app:s3cret@rabbit:5672/%2F\nexchange=from-file\nconfirm-timeout=5s\n");

    PublisherSettings s =
        PublisherSettings.of(Broker.RABBIT, file, Map.of("exchange", "from-flag"));

    assertThat(s.require("exchange")).isEqualTo("from-flag");
    assertThat(s.require("amqp-uri")).isEqualTo("amqp://app:s3cret@rabbit:5672/%2F");
    assertThat(s.toString())
        .contains("amqp-uri=amqp://app:****@rabbit:5672/%2F")
        .contains("exchange=from-flag")
        .doesNotContain("s3cret");
  }

  @Test
  void anotherBrokersSettingIsRejected() {
    assertThatThrownBy(
            () -> PublisherSettings.of(Broker.KAFKA, null, Map.of("amqp-uri", "amqp://h")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a setting of --publisher kafka must be one of bootstrap-servers, topic-prefix,"
                + " topic.*, kafka.*, send-timeout but was 'amqp-uri'");
  }

  @Test
  void anUnreadableFileIsRejected(@TempDir Path dir) {
    assertThatThrownBy(
            () -> PublisherSettings.of(Broker.KAFKA, dir.resolve("missing.properties"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--publisher-config must name a readable file but ")
        .hasMessageEndingWith("missing.properties could not be read (NoSuchFileException)");
  }

  @Test
  void buildsAKafkaPublisherWithProducerSettingsFromTheFile(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("kafka.properties"),
            "kafka.bootstrap.servers=127.0.0.1:1\n"
                + "kafka.compression.type=gzip\n"
                + "kafka.sasl.jaas.config=x required password=\"p\";\n"
                + "topic.order=orders\n"
                + "send-timeout=5s\n");
    PublisherSettings s = PublisherSettings.of(Broker.KAFKA, file, Map.of());

    try (Publisher p = Publishers.create(s, "test")) {
      assertThat(p).isInstanceOf(KafkaPublisher.class);
    }
    assertThat(s.toString()).contains("kafka.sasl.jaas.config=****");
  }

  @Test
  void kafkaNeedsBootstrapServers() {
    PublisherSettings s = PublisherSettings.of(Broker.KAFKA, null, Map.of("topic-prefix", "p."));

    assertThatThrownBy(() -> Publishers.create(s, "test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--bootstrap-servers");
  }

  @Test
  void buildsAnSqsPublisherWithRegionEndpointAndQueues() throws Exception {
    PublisherSettings s =
        PublisherSettings.of(
            Broker.SQS,
            null,
            Map.of(
                "sqs-region", "eu-west-1",
                "sqs-endpoint", "http://127.0.0.1:1",
                "queue.order", "http://127.0.0.1:1/000000000000/orders",
                "sqs-request-timeout", "3s"));

    try (Publisher p = Publishers.create(s, "test")) {
      assertThat(p).isInstanceOf(SqsPublisher.class);
    }
  }

  @Test
  void buildsARabbitPublisher() throws Exception {
    PublisherSettings s =
        PublisherSettings.of(
            Broker.RABBIT,
            null,
            Map.of(
                "amqp-uri", "amqp://guest:guest@127.0.0.1:5672/%2F",
                "exchange", "x",
                "declare-exchange", "topic",
                "unroutable-is-permanent", "true"));

    try (Publisher p = Publishers.create(s, "test")) {
      assertThat(p).isInstanceOf(RabbitPublisher.class);
    }
  }

  @Test
  void rejectsAnUnknownExchangeType() {
    PublisherSettings s =
        PublisherSettings.of(
            Broker.RABBIT,
            null,
            Map.of("amqp-uri", "amqp://h", "exchange", "x", "declare-exchange", "round-robin"));

    assertThatThrownBy(() -> Publishers.create(s, "test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--declare-exchange must be one of direct, fanout, topic, headers, consistent-hash,"
                + " modulus-hash, local-random, random but was 'round-robin'");
  }
}
