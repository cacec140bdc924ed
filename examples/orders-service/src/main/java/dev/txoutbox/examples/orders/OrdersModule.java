package dev.txoutbox.examples.orders;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.name.Names;
import dev.txoutbox.RelayListener;
import dev.txoutbox.inbox.OutboxInbox;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The order service's own bindings: the {@link DataSource}, the schema name, the {@link
 * OutboxInbox} of the downstream consumer (in the consumer's schema) and a {@link RelayListener}
 * counting what the relay publishes. {@code OutboxModule} and {@code KafkaPublisherModule} do the
 * rest:
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *     new OrdersModule(dataSource, "orders_example", "orders_example_consumer", tally),
 *     OutboxModule.builder().schema("orders_example").relay(relayConfig).bindDslContext().build(),
 *     new KafkaPublisherModule(KafkaPublisher.builder().bootstrapServers(servers)));
 * CreateOrder createOrder = injector.getInstance(CreateOrder.class);
 * }</pre>
 */
final class OrdersModule extends AbstractModule {

  /** The name of the bound schema string. */
  static final String SCHEMA = "orders.schema";

  /** The consumer's name in its inbox. */
  static final String CONSUMER_NAME = "customer-totals";

  private final DataSource dataSource;
  private final String schema;
  private final String consumerSchema;
  private final RelayListener relayListener;

  OrdersModule(
      DataSource dataSource, String schema, String consumerSchema, RelayListener relayListener) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.consumerSchema = Objects.requireNonNull(consumerSchema, "consumerSchema");
    this.relayListener = Objects.requireNonNull(relayListener, "relayListener");
  }

  @Override
  protected void configure() {
    bind(DataSource.class).toInstance(dataSource);
    bindConstant().annotatedWith(Names.named(SCHEMA)).to(schema);
    Multibinder.newSetBinder(binder(), RelayListener.class).addBinding().toInstance(relayListener);
  }

  @Provides
  @Singleton
  OutboxInbox inbox() {
    return OutboxInbox.builder().schema(consumerSchema).build();
  }
}
