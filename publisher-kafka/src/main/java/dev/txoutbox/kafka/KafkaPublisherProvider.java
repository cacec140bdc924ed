package dev.txoutbox.kafka;

import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * {@code kafka}: the {@link KafkaPublisher} as the standalone relay and the benchmarks find it,
 * through {@link java.util.ServiceLoader}. Each setting is one option of {@link
 * KafkaPublisher.Builder}: {@code bootstrap-servers}, {@code topic-prefix}, {@code topic.TYPE} (the
 * {@code topics} map), {@code producer.NAME} (the {@code producerConfig} map) and {@code
 * send-timeout}. The producer's {@code client.id} is the settings' {@linkplain
 * PublisherSettings#clientName() client name} unless {@code producer.client.id} is given.
 *
 * <p>{@link #create} names a setting in its errors as its flag, whichever check found the problem:
 * {@code --send-timeout must be positive but was 0ms}, never the builder's {@code sendTimeout}.
 * Stateless and thread-safe.
 */
public final class KafkaPublisherProvider implements PublisherProvider {

  private static final List<PublisherSetting> SETTINGS =
      List.of(
          PublisherSetting.text(
              "bootstrap-servers",
              "HOST:PORT[,...]",
              "Kafka brokers to bootstrap from. Required, unless producer.bootstrap.servers is"
                  + " given."),
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
              DurationText.of(KafkaPublisher.DEFAULT_SEND_TIMEOUT),
              "How long one batch may take, from the first send to the last answer."));

  /** The builder's option names in its error messages, and the flag of each. */
  private static final Map<String, String> FLAGS =
      Map.of(
          "bootstrapServers", "--bootstrap-servers",
          "topicPrefix", "--topic-prefix",
          "topics", "--topic",
          "producerConfig", "--producer",
          "sendTimeout", "--send-timeout");

  /** For {@link java.util.ServiceLoader}. */
  public KafkaPublisherProvider() {}

  /** Returns {@code kafka}. */
  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public List<PublisherSetting> settings() {
    return SETTINGS;
  }

  /**
   * A publisher with these settings; its producer connects on the first batch.
   *
   * @throws IllegalArgumentException naming the flag, when a setting is missing, invalid or
   *     contradicts another
   */
  @Override
  public Publisher create(PublisherSettings settings) {
    try {
      return builder(settings).build();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw PublisherSettings.inFlags(e, FLAGS);
    }
  }

  private static KafkaPublisher.Builder builder(PublisherSettings settings) {
    Map<String, String> producer = new TreeMap<>(settings.map("producer"));
    producer.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, settings.clientName());
    KafkaPublisher.Builder b = KafkaPublisher.builder().producerConfig(producer);
    if (settings.text("bootstrap-servers").isPresent()
        || !producer.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
      b.bootstrapServers(settings.required("bootstrap-servers"));
    }
    settings.text("topic-prefix").ifPresent(b::topicPrefix);
    Map<String, String> topics = settings.map("topic");
    if (!topics.isEmpty()) {
      b.topics(topics);
    }
    settings.duration("send-timeout").ifPresent(b::sendTimeout);
    return b;
  }
}
