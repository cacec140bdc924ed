package dev.txoutbox.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Inject;
import com.google.inject.Provider;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.txoutbox.HeadersProvider;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.Publisher;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Binds {@link Outbox}, {@link OutboxAdmin} and (unless {@link Builder#writerOnly()}) {@link
 * OutboxRelay} as singletons, made with the same public builders a plain-Java user calls.
 *
 * <p>You bind a {@link DataSource} or a {@link DSLContext} (or both) and, for the relay, a {@link
 * Publisher} (a broker plugin's module does that). Optional: a {@link PayloadSerializer}, a {@link
 * HeadersProvider}, and {@link RelayListener}s through {@code Multibinder.newSetBinder(binder(),
 * RelayListener.class)}. A missing binding fails injector creation with a message saying what to
 * bind.
 *
 * <p>With {@link Builder#bindDslContext()}, you bind only a {@code DataSource} and this module
 * binds a {@code DSLContext} on it with the writer's {@link Outbox#transactionListener()}
 * installed, so transactions run through it wake the relay the moment they commit. A {@code
 * DSLContext} of your own gets the same by {@code configuration.set(outbox.transactionListener())};
 * without it the relay finds events at its next poll. The relay is not started for you: call {@code
 * injector.getInstance(OutboxRelay.class).start()} and close it at shutdown.
 *
 * <p>The outbox is located once, by {@link Builder#schema(String)}: the writer, the relay and the
 * admin all use it, and the bound {@link OutboxAdmin} is the relay's own {@link
 * OutboxRelay#admin()} (unless {@link Builder#writerOnly()}). With {@link
 * Builder#metrics(MeterRegistry)} the relay registers its meters itself, named after its {@link
 * RelayConfig#name()}, and removes them when it is closed.
 *
 * <p>Thread-safe once built.
 */
public final class OutboxModule extends AbstractModule {

  private final String schema;
  private final @Nullable RelayConfig relayConfig;
  private final boolean bindDslContext;

  /**
   * Gives the relay its metrics, or does nothing. A function rather than the metrics themselves:
   * Guice reads this class's members, which must not name a Micrometer type.
   */
  private final UnaryOperator<OutboxRelay.Builder> relayMetrics;

  private OutboxModule(Builder b) {
    this.schema = b.schema;
    this.relayConfig = b.relayConfig;
    this.bindDslContext = b.bindDslContext;
    this.relayMetrics = b.relayMetrics;
  }

  /** Writer, admin and relay with default settings, in schema {@code public}. */
  public static OutboxModule create() {
    return builder().build();
  }

  /** Starts configuring the module. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  protected void configure() {
    OptionalBinder.newOptionalBinder(binder(), DataSource.class);
    OptionalBinder.newOptionalBinder(binder(), Publisher.class);
    OptionalBinder.newOptionalBinder(binder(), PayloadSerializer.class);
    OptionalBinder.newOptionalBinder(binder(), HeadersProvider.class);
    Multibinder.newSetBinder(binder(), RelayListener.class);
    OptionalBinder<DSLContext> dsl = OptionalBinder.newOptionalBinder(binder(), DSLContext.class);
    if (bindDslContext) {
      dsl.setBinding().toProvider(WakingDsl.class).in(Singleton.class);
    }
    requestInjection(new BindingCheck(relayConfig != null, bindDslContext));
  }

  /** A DSLContext on the bound DataSource whose commits wake the relay. */
  private static final class WakingDsl implements Provider<DSLContext> {
    private final Optional<DataSource> dataSource;
    private final Outbox outbox;

    @Inject
    WakingDsl(Optional<DataSource> dataSource, Outbox outbox) {
      this.dataSource = dataSource;
      this.outbox = outbox;
    }

    @Override
    public DSLContext get() {
      DSLContext dsl =
          DSL.using(dataSource.orElseThrow(BindingCheck::missingDatabase), SQLDialect.POSTGRES);
      dsl.configuration().set(outbox.transactionListener());
      return dsl;
    }
  }

  @Provides
  @Singleton
  Outbox outbox(
      Optional<PayloadSerializer> serializer,
      Optional<HeadersProvider> headers,
      Provider<OutboxRelay> relay) {
    Outbox.Builder builder = Outbox.builder().schema(schema);
    serializer.ifPresent(builder::payloadSerializer);
    headers.ifPresent(builder::headersProvider);
    if (relayConfig != null) {
      builder.afterCommit(() -> relay.get().wakeUp());
    }
    return builder.build();
  }

  @Provides
  @Singleton
  OutboxAdmin admin(
      Optional<DataSource> dataSource, Optional<DSLContext> dsl, Provider<OutboxRelay> relay) {
    if (relayConfig != null) {
      return relay.get().admin();
    }
    return dataSource.isPresent()
        ? OutboxAdmin.create(dataSource.get(), schema)
        : OutboxAdmin.create(dsl.orElseThrow(BindingCheck::missingDatabase), schema);
  }

  @Provides
  @Singleton
  OutboxRelay relay(
      Optional<DataSource> dataSource,
      Optional<DSLContext> dsl,
      Optional<Publisher> publisher,
      Set<RelayListener> listeners) {
    if (relayConfig == null) {
      throw new IllegalStateException(
          "OutboxModule was built writerOnly(): it binds no OutboxRelay");
    }
    OutboxRelay.Builder builder =
        OutboxRelay.builder()
            .schema(schema)
            .config(relayConfig)
            .publisher(publisher.orElseThrow(BindingCheck::missingPublisher));
    if (dataSource.isPresent()) {
      builder.dataSource(dataSource.get());
    } else {
      builder.dsl(dsl.orElseThrow(BindingCheck::missingDatabase));
    }
    listeners.forEach(builder::listener);
    return relayMetrics.apply(builder).build();
  }

  /** Checks at injector creation that the user bound what the module needs. */
  private static final class BindingCheck {
    private final boolean needsPublisher;
    private final boolean needsDataSource;

    BindingCheck(boolean needsPublisher, boolean needsDataSource) {
      this.needsPublisher = needsPublisher;
      this.needsDataSource = needsDataSource;
    }

    @Inject
    void verify(
        Optional<DataSource> dataSource,
        Provider<Optional<DSLContext>> dsl,
        Optional<Publisher> publisher) {
      if (dataSource.isEmpty() && (needsDataSource || dsl.get().isEmpty())) {
        throw missingDatabase();
      }
      if (needsPublisher && publisher.isEmpty()) {
        throw missingPublisher();
      }
    }

    static IllegalStateException missingDatabase() {
      return new IllegalStateException(
          "OutboxModule needs the database: bind a javax.sql.DataSource (for example"
              + " bind(DataSource.class).toInstance(hikariDataSource)) or an org.jooq.DSLContext");
    }

    static IllegalStateException missingPublisher() {
      return new IllegalStateException(
          "OutboxModule's relay needs a dev.txoutbox.spi.Publisher: install a broker module such"
              + " as KafkaPublisherModule, SqsPublisherModule or RabbitPublisherModule, or"
              + " bind(Publisher.class) yourself; for a service that only writes events, use"
              + " OutboxModule.builder().writerOnly()");
    }
  }

  /** Configures an {@link OutboxModule}. Not thread-safe. */
  public static final class Builder {
    private String schema = OutboxSchema.DEFAULT_SCHEMA;
    private @Nullable RelayConfig relayConfig = RelayConfig.defaults();
    private boolean bindDslContext;
    private UnaryOperator<OutboxRelay.Builder> relayMetrics = UnaryOperator.identity();
    private boolean metrics;

    private Builder() {}

    /** The schema holding the outbox tables. Defaults to {@code public}. */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /** The relay's configuration. Defaults to {@link RelayConfig#defaults()}. */
    public Builder relay(RelayConfig relayConfig) {
      this.relayConfig = Objects.requireNonNull(relayConfig, "relayConfig");
      return this;
    }

    /**
     * Binds no relay and needs no {@link Publisher}: for services that only write events while the
     * relay runs elsewhere, such as the {@code txoutbox relay} command.
     */
    public Builder writerOnly() {
      this.relayConfig = null;
      return this;
    }

    /**
     * The relay registers its meters in {@code registry}, with the default {@link OutboxMetrics}
     * settings; see {@link OutboxRelay.Builder#metrics(MeterRegistry)}. Defaults to none.
     *
     * @throws NullPointerException if {@code registry} is null
     */
    public Builder metrics(MeterRegistry registry) {
      return metrics(OutboxMetrics.in(registry));
    }

    /**
     * The relay registers its meters as {@code metrics} says; see {@link
     * OutboxRelay.Builder#metrics(OutboxMetrics)}. Defaults to none.
     *
     * @throws NullPointerException if {@code metrics} is null
     */
    public Builder metrics(OutboxMetrics metrics) {
      Objects.requireNonNull(metrics, "metrics");
      this.relayMetrics = relay -> relay.metrics(metrics);
      this.metrics = true;
      return this;
    }

    /**
     * Also binds {@code DSLContext}: one on the bound {@code DataSource}, with the writer's
     * after-commit wake-up installed. Do not bind a {@code DSLContext} yourself then.
     */
    public Builder bindDslContext() {
      this.bindDslContext = true;
      return this;
    }

    /**
     * Checks the settings and makes the module.
     *
     * @throws IllegalArgumentException if the schema is not a valid name
     * @throws IllegalStateException if given {@link #metrics(OutboxMetrics) metrics} but built
     *     {@link #writerOnly()}: the meters are the relay's
     */
    public OutboxModule build() {
      OutboxSchema.requireSchemaName(schema);
      if (metrics && relayConfig == null) {
        throw new IllegalStateException(
            "metrics(...) must be given to a module with a relay but the module is writerOnly()");
      }
      return new OutboxModule(this);
    }
  }
}
