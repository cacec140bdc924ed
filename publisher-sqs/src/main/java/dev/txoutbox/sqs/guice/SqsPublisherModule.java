package dev.txoutbox.sqs.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.SqsPublisher;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * Binds {@link Publisher} to an {@link SqsPublisher}, built with the same public builder a
 * plain-Java user calls.
 *
 * <p>You bind the {@link SqsAsyncClient} (region, credentials, endpoint are yours to choose) and
 * close it at shutdown; the publisher does not close it unless your configuration says {@link
 * SqsPublisher.Builder#closeClient(boolean) closeClient(true)}.
 *
 * <pre>{@code
 * Guice.createInjector(
 *     OutboxModule.create(),
 *     SqsPublisherModule.routes(Map.of("order", "orders.fifo")),
 *     binder -> binder.bind(SqsAsyncClient.class).toInstance(SqsAsyncClient.create()),
 *     ...);
 * }</pre>
 *
 * <p>This type is immutable and thread-safe.
 */
public final class SqsPublisherModule extends AbstractModule {

  private final Consumer<SqsPublisher.Builder> configuration;

  /**
   * A module whose publisher is configured by {@code configuration}, which receives a builder that
   * already has the bound client and sets routes (or a router) and options.
   *
   * @throws NullPointerException if {@code configuration} is null
   */
  public SqsPublisherModule(Consumer<SqsPublisher.Builder> configuration) {
    this.configuration = Objects.requireNonNull(configuration, "configuration");
  }

  /**
   * A module whose publisher routes by aggregate type, with default options.
   *
   * @param routes aggregate type to queue URL or name
   * @throws NullPointerException if {@code routes} is null
   */
  public static SqsPublisherModule routes(Map<String, String> routes) {
    Map<String, String> copy = Map.copyOf(Objects.requireNonNull(routes, "routes"));
    return new SqsPublisherModule(builder -> builder.routes(copy));
  }

  @Provides
  @Singleton
  Publisher publisher(SqsAsyncClient client) {
    SqsPublisher.Builder builder = SqsPublisher.builder().client(client);
    configuration.accept(builder);
    return builder.build();
  }
}
