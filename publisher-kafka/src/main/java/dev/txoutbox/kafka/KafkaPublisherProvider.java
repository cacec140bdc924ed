package dev.txoutbox.kafka;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.util.List;
import java.util.Map;

/**
 * {@code kafka}: the {@link KafkaPublisher} as the standalone relay and the benchmarks find it.
 * Stateless.
 */
public final class KafkaPublisherProvider implements PublisherProvider {

  private static final List<PublisherSetting> SETTINGS =
      List.of(
          PublisherSetting.text(
              "bootstrap-servers", "HOST:PORT[,...]", "Kafka brokers to bootstrap from."),
          PublisherSetting.text(
              "topic-prefix",
              "PREFIX",
              "Topic = PREFIX + aggregate type. Default: the aggregate type."),
          PublisherSetting.map(
              "topic",
              "TYPE=TOPIC",
              "Explicit topic of an aggregate type (repeatable); unmapped types dead-letter."),
          PublisherSetting.map(
              "producer",
              "NAME=VALUE",
              "Any Kafka producer setting (repeatable), such as compression.type=zstd. Put secrets"
                  + " (sasl.jaas.config) in a settings file as producer.NAME=VALUE instead."),
          PublisherSetting.duration(
              "send-timeout",
              "30s",
              "How long one batch may take, from the first send to the last answer."));

  /** For {@link java.util.ServiceLoader}. */
  public KafkaPublisherProvider() {}

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public List<PublisherSetting> settings() {
    return SETTINGS;
  }

  @Override
  public Publisher create(PublisherSettings settings) {
    KafkaPublisher.Builder b = KafkaPublisher.builder();
    Map<String, String> producer = settings.map("producer");
    if (settings.text("bootstrap-servers").isPresent()
        || !producer.containsKey("bootstrap.servers")) {
      b.bootstrapServers(settings.required("bootstrap-servers"));
    }
    b.producerConfig(producer);
    settings.text("topic-prefix").ifPresent(b::topicPrefix);
    Map<String, String> topics = settings.map("topic");
    if (!topics.isEmpty()) {
      b.topics(topics);
    }
    settings.duration("send-timeout").ifPresent(b::sendTimeout);
    return b.build();
  }
}
