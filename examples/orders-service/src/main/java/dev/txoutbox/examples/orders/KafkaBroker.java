package dev.txoutbox.examples.orders;

import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * The Kafka the example runs on: the cluster at the given bootstrap servers, or a single-node KRaft
 * broker that the example starts in a child JVM ({@link EmbeddedKafka}), stops and restarts for
 * {@code --broker-outage}, and removes on close. Thread-safe.
 */
final class KafkaBroker implements AutoCloseable {

  private final String bootstrapServers;
  private final EmbeddedKafka embedded;

  private KafkaBroker(String bootstrapServers, EmbeddedKafka embedded) {
    this.bootstrapServers = bootstrapServers;
    this.embedded = embedded;
  }

  /** The cluster at {@code bootstrapServers}; the example never stops it. */
  static KafkaBroker external(String bootstrapServers) {
    return new KafkaBroker(bootstrapServers, null);
  }

  /**
   * Starts a broker in a child JVM and waits until it serves requests (a few seconds).
   *
   * @throws IllegalStateException if it does not come up
   */
  static KafkaBroker embedded() {
    EmbeddedKafka kafka = EmbeddedKafka.builder().start();
    return new KafkaBroker(kafka.bootstrapServers(), kafka);
  }

  String bootstrapServers() {
    return bootstrapServers;
  }

  /** Whether the example started this broker, and so may stop it. */
  boolean isEmbedded() {
    return embedded != null;
  }

  String description() {
    return (isEmbedded() ? "embedded broker (child JVM), " : "") + bootstrapServers;
  }

  /** Stops the embedded broker (SIGTERM); its data stays for {@link #start()}. */
  void stop() {
    requireEmbedded().stop();
  }

  /** Starts the embedded broker again on the same port and waits until it serves requests. */
  void start() {
    requireEmbedded().start();
  }

  /**
   * Creates {@code topic} with {@code partitions} partitions unless it exists, so the consumer can
   * subscribe before the first event is published.
   *
   * @throws IllegalStateException if the cluster does not answer within 30 seconds
   */
  void ensureTopic(String topic, int partitions) {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                30_000))) {
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException(
            "could not create topic " + topic + ": " + e.getCause().getMessage(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka at " + bootstrapServers + " did not answer within 30 s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    }
  }

  /** Stops and deletes an embedded broker; leaves an external cluster alone. */
  @Override
  public void close() {
    if (embedded != null) {
      embedded.close();
    }
  }

  private EmbeddedKafka requireEmbedded() {
    if (embedded == null) {
      throw new IllegalStateException("only the embedded broker can be stopped and started");
    }
    return embedded;
  }
}
