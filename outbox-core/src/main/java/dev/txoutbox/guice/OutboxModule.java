package dev.txoutbox.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Inject;
import com.google.inject.Key;
import com.google.inject.Provider;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import com.google.inject.name.Named;
import com.google.inject.name.Names;
import dev.txoutbox.HeadersProvider;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.Publisher;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

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
 * <p>When you bind a {@code DataSource} and no {@code DSLContext}, this module binds a {@code
 * DSLContext} on it with the writer's {@link Outbox#transactionListener()} installed, so
 * transactions run through it wake the relay the moment they commit. The relay is not started for
 * you: call {@code injector.getInstance(OutboxRelay.class).start()} and close it at shutdown.
 *
 * <p>Thread-safe once built.
 */
public final class OutboxModule extends AbstractModule {

  private static final String DEFAULT_DSL = "txoutbox.default-dsl";

  private final String schema;
  private final RelayConfig relayConfig;

  private OutboxModule(String schema, RelayConfig relayConfig) {
    this.schema = schema;
    this.relayConfig = relayConfig;
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
    OptionalBinder.newOptionalBinder(binder(), DSLContext.class)
        .setDefault()
        .to(Key.get(DSLContext.class, Names.named(DEFAULT_DSL)));
    requestInjection(new BindingCheck(relayConfig != null));
  }

  @Provides
  @Singleton
  @Named(DEFAULT_DSL)
  DSLContext defaultDsl(Optional<DataSource> dataSource, Outbox outbox) {
    DataSource ds = dataSource.orElseThrow(BindingCheck::missingDatabase);
    DSLContext dsl = DSL.using(ds, SQLDialect.POSTGRES);
    dsl.configuration().set(outbox.transactionListener());
    return dsl;
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
  OutboxAdmin admin(Optional<DataSource> dataSource, Provider<DSLContext> dsl) {
    return dataSource.isPresent()
        ? OutboxAdmin.create(dataSource.get(), schema)
        : OutboxAdmin.create(dsl.get(), schema);
  }

  @Provides
  @Singleton
  OutboxRelay relay(
      Optional<DataSource> dataSource,
      Provider<DSLContext> dsl,
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
      builder.dsl(dsl.get());
    }
    listeners.forEach(builder::listener);
    return builder.build();
  }

  /** Checks at injector creation that the user bound what the module needs. */
  private static final class BindingCheck {
    private final boolean needsPublisher;

    BindingCheck(boolean needsPublisher) {
      this.needsPublisher = needsPublisher;
    }

    @Inject
    void verify(
        Optional<DataSource> dataSource, Provider<DSLContext> dsl, Optional<Publisher> publisher) {
      if (dataSource.isEmpty()) {
        dsl.get(); // the user's DSLContext, or the default one, which reports what is missing
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
    private RelayConfig relayConfig = RelayConfig.defaults();

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
     * @throws IllegalArgumentException if the schema is not a valid name
     */
    public OutboxModule build() {
      OutboxSchema.requireSchemaName(schema);
      return new OutboxModule(schema, relayConfig);
    }
  }
}
