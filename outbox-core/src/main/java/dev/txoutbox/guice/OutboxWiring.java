package dev.txoutbox.guice;

import com.google.inject.Binder;
import com.google.inject.Inject;
import com.google.inject.Provider;
import com.google.inject.TypeLiteral;
import dev.txoutbox.HeadersProvider;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.TransactionListener;
import org.jooq.TransactionListenerProvider;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link OutboxModule} makes, from the bindings it reads through its {@link ModuleKeys}:
 * the same public builders a plain-Java user calls, and the check at injector creation that the
 * user bound what the module needs.
 */
final class OutboxWiring {

  /** The settings of the module; see {@link OutboxModule.Builder}. */
  record Options(
      OutboxTables tables,
      @Nullable RelayConfig relayConfig,
      UnaryOperator<OutboxRelay.Builder> relayMetrics,
      boolean bindDslContext,
      @Nullable Settings dslSettings,
      boolean commitWakeUp) {}

  private final ModuleKeys keys;
  private final Options settings;
  private final Provider<Optional<DataSource>> dataSource;
  private final Provider<Optional<DSLContext>> dsl;
  private final Provider<Optional<Publisher>> publisher;
  private final Provider<Optional<PayloadSerializer>> serializer;
  private final Provider<Optional<HeadersProvider>> headers;
  private final Provider<Set<RelayListener>> listeners;
  private final Provider<Outbox> outbox;
  private final Provider<OutboxRelay> relay;

  OutboxWiring(Binder binder, ModuleKeys keys, Options settings) {
    this.keys = keys;
    this.settings = settings;
    this.dataSource = binder.getProvider(keys.of(new TypeLiteral<Optional<DataSource>>() {}));
    this.dsl = binder.getProvider(keys.of(new TypeLiteral<Optional<DSLContext>>() {}));
    this.publisher = binder.getProvider(keys.of(new TypeLiteral<Optional<Publisher>>() {}));
    this.serializer =
        binder.getProvider(keys.of(new TypeLiteral<Optional<PayloadSerializer>>() {}));
    this.headers = binder.getProvider(keys.of(new TypeLiteral<Optional<HeadersProvider>>() {}));
    this.listeners = binder.getProvider(keys.of(new TypeLiteral<Set<RelayListener>>() {}));
    this.outbox = binder.getProvider(keys.of(Outbox.class));
    this.relay = binder.getProvider(keys.of(OutboxRelay.class));
  }

  /** A provider calling {@code make}, for {@code bind(key).toProvider(...)}. */
  static <T> Provider<T> provider(Supplier<T> make) {
    return make::get;
  }

  /** An object whose injection, at injector creation, runs {@link #verify()}. */
  Object check() {
    return new Check(this);
  }

  private static final class Check {
    private final OutboxWiring wiring;

    Check(OutboxWiring wiring) {
      this.wiring = wiring;
    }

    @Inject
    void verify() {
      wiring.verify();
    }
  }

  Outbox outbox() {
    Outbox.Builder builder = Outbox.builder().tables(settings.tables());
    serializer.get().ifPresent(builder::payloadSerializer);
    headers.get().ifPresent(builder::headersProvider);
    if (settings.relayConfig() != null && settings.commitWakeUp()) {
      builder.afterCommit(() -> relay.get().wakeUp());
    }
    return builder.build();
  }

  OutboxAdmin admin() {
    if (settings.relayConfig() != null) {
      return relay.get().admin();
    }
    Optional<DataSource> ds = dataSource.get();
    return ds.isPresent()
        ? OutboxAdmin.builder().dataSource(ds.get()).tables(settings.tables()).build()
        : OutboxAdmin.builder()
            .dsl(dsl.get().orElseThrow(this::missingDatabase))
            .tables(settings.tables())
            .build();
  }

  OutboxRelay relay() {
    RelayConfig config = settings.relayConfig();
    if (config == null) {
      throw new IllegalStateException(
          keys.module() + " was built writerOnly(): it binds no OutboxRelay");
    }
    OutboxRelay.Builder builder =
        OutboxRelay.builder()
            .tables(settings.tables())
            .config(config)
            .publisher(publisher.get().orElseThrow(this::missingPublisher));
    Optional<DataSource> ds = dataSource.get();
    if (ds.isPresent()) {
      builder.dataSource(ds.get());
    } else {
      builder.dsl(dsl.get().orElseThrow(this::missingDatabase));
    }
    listeners.get().forEach(builder::listener);
    return settings.relayMetrics().apply(builder).build();
  }

  /** The module's own DSLContext: on the bound DataSource, its commits waking the relay. */
  DSLContext wakingDsl() {
    DataSource ds = dataSource.get().orElseThrow(this::missingDatabase);
    Settings given = settings.dslSettings();
    DSLContext made =
        given == null
            ? DSL.using(ds, SQLDialect.POSTGRES)
            : DSL.using(ds, SQLDialect.POSTGRES, (Settings) given.clone());
    made.configuration().set(outbox.get().transactionListener());
    return made;
  }

  /** Checks at injector creation that the user bound what the module needs. */
  private void verify() {
    if (dataSource.get().isEmpty() && (settings.bindDslContext() || dsl.get().isEmpty())) {
      throw missingDatabase();
    }
    if (settings.relayConfig() == null) {
      return;
    }
    if (publisher.get().isEmpty()) {
      throw missingPublisher();
    }
    if (settings.commitWakeUp() && !settings.bindDslContext()) {
      Optional<DSLContext> own = dsl.get();
      if (own.isPresent() && !wakes(own.get(), outbox.get().transactionListener())) {
        throw missingWakeUp();
      }
    }
  }

  /** Whether transactions run on {@code dsl} call {@code listener}. */
  private static boolean wakes(DSLContext dsl, TransactionListener listener) {
    for (TransactionListenerProvider p : dsl.configuration().transactionListenerProviders()) {
      if (p.provide() == listener) {
        return true;
      }
    }
    return false;
  }

  private IllegalStateException missingDatabase() {
    return new IllegalStateException(
        keys.module()
            + " needs the database: bind a "
            + keys.binding(DataSource.class)
            + " (for example bind(DataSource.class)"
            + (keys.qualified() ? ".annotatedWith(...)" : "")
            + ".toInstance(hikariDataSource)) or a "
            + keys.binding(DSLContext.class));
  }

  private IllegalStateException missingPublisher() {
    return new IllegalStateException(
        keys.module()
            + "'s relay needs a "
            + keys.binding(Publisher.class)
            + ": install a broker module such as KafkaPublisherModule, SqsPublisherModule or"
            + " RabbitPublisherModule, or bind(Publisher.class)"
            + (keys.qualified() ? ".annotatedWith(...)" : "")
            + " yourself; for a service that only writes events, use"
            + " OutboxModule.builder().writerOnly()");
  }

  private IllegalStateException missingWakeUp() {
    String q = keys.qualified() ? keys.qualifier() + " " : "";
    return new IllegalStateException(
        keys.module()
            + " was given a "
            + keys.binding(DSLContext.class)
            + " of your own without the writer's after-commit wake-up, so its relay would find new events only"
            + " at its next poll. Install it where you make the DSLContext: @Provides @Singleton "
            + q
            + "DSLContext dsl("
            + q
            + "DataSource ds, "
            + q
            + "Outbox outbox) { DSLContext dsl = DSL.using(ds, SQLDialect.POSTGRES);"
            + " dsl.configuration().set(outbox.transactionListener()); return dsl; } (name any"
            + " listeners of your own in the same set(...) call); or bind only the DataSource and"
            + " let the module make the DSLContext with OutboxModule.builder().bindDslContext();"
            + " or, if no transaction on this DSLContext records events, build the module with"
            + " withoutCommitWakeUp()");
  }
}
