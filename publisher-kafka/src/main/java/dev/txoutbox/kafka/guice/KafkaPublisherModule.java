package dev.txoutbox.kafka.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.spi.Publisher;
import java.util.Objects;

/**
 * Binds {@link Publisher} (and {@link KafkaPublisher}) to one Kafka publisher, built from the
 * builder given to the constructor when first injected. Thin glue: everything here is one call to
 * the public {@link KafkaPublisher.Builder}.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new KafkaPublisherModule(KafkaPublisher.builder().bootstrapServers("kafka:9092")),
 *     new OutboxModule(...));
 * }</pre>
 *
 * <p>The application closes the publisher when it shuts down, after closing the relay. This class
 * is thread-safe.
 */
public final class KafkaPublisherModule extends AbstractModule {

  private final KafkaPublisher.Builder builder;

  /**
   * @param builder the publisher's settings; read once, when the publisher is first injected
   * @throws NullPointerException if {@code builder} is null
   */
  public KafkaPublisherModule(KafkaPublisher.Builder builder) {
    this.builder = Objects.requireNonNull(builder, "builder");
  }

  /** A module for a publisher with the defaults and these bootstrap servers. */
  public static KafkaPublisherModule forBootstrapServers(String bootstrapServers) {
    return new KafkaPublisherModule(KafkaPublisher.builder().bootstrapServers(bootstrapServers));
  }

  @Provides
  @Singleton
  KafkaPublisher kafkaPublisher() {
    return builder.build();
  }

  @Provides
  @Singleton
  Publisher publisher(KafkaPublisher publisher) {
    return publisher;
  }
}
