package dev.txoutbox.rabbit.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.txoutbox.rabbit.RabbitPublisher;
import dev.txoutbox.spi.Publisher;
import java.util.Objects;

/**
 * Binds {@link Publisher} and {@link RabbitPublisher} to one singleton built from the given
 * builder, so the relay's Guice module finds its publisher. Thread-safe.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new RabbitPublisherModule(RabbitPublisher.builder()
 *         .uri(System.getenv("RABBIT_URI"))
 *         .exchange("outbox")),
 *     ...);
 * }</pre>
 *
 * <p>The builder is built once, when the publisher is first injected. Close the publisher ({@code
 * injector.getInstance(RabbitPublisher.class).close()}) after closing the relay.
 */
public final class RabbitPublisherModule extends AbstractModule {

  private final RabbitPublisher.Builder builder;

  /**
   * @param builder the configured builder; not used after the publisher is built
   * @throws NullPointerException if {@code builder} is null
   */
  public RabbitPublisherModule(RabbitPublisher.Builder builder) {
    this.builder = Objects.requireNonNull(builder, "builder");
  }

  @Provides
  @Singleton
  RabbitPublisher rabbitPublisher() {
    return builder.build();
  }

  @Provides
  @Singleton
  Publisher publisher(RabbitPublisher rabbitPublisher) {
    return rabbitPublisher;
  }
}
