package dev.txoutbox.guice;

import com.google.inject.AbstractModule;
import com.google.inject.Binder;
import com.google.inject.Provider;
import com.google.inject.Singleton;
import com.google.inject.TypeLiteral;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.txoutbox.HeadersProvider;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.RoutingPublisher;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.annotation.Annotation;
import java.util.Objects;
import java.util.Optional;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.conf.Settings;
import org.jspecify.annotations.Nullable;

/**
 * Binds {@link Outbox}, {@link OutboxAdmin} and (unless {@link Builder#writerOnly()}) {@link
 * OutboxRelay} as singletons, made with the same public builders a plain-Java user calls.
 *
 * <h2>What you bind</h2>
 *
 * <ul>
 *   <li>The database: a {@link DataSource} or a {@link DSLContext} (or both; the relay and the
 *       admin then use the {@code DataSource}).
 *   <li>For the relay, a {@link Publisher}: a broker plugin's module binds one, or bind your own (a
 *       {@link RoutingPublisher} to feed several brokers from one outbox).
 *   <li>Optional: a {@link PayloadSerializer} for payloads that are objects rather than JSON, a
 *       {@link HeadersProvider} adding headers to every event, and any number of {@link
 *       RelayListener}s:
 *       <pre>{@code
 * bind(PayloadSerializer.class).toInstance(jacksonSerializer);
 * bind(HeadersProvider.class).to(TenantHeaders.class);
 * Multibinder.newSetBinder(binder(), RelayListener.class).addBinding().to(AlertOnDeadLetter.class);
 * }</pre>
 * </ul>
 *
 * A missing binding fails injector creation with a message saying what to bind.
 *
 * <h2>The after-commit wake-up</h2>
 *
 * A relay in the same process publishes within milliseconds when the transactions that record
 * events run on a {@code DSLContext} carrying the writer's {@link Outbox#transactionListener()};
 * otherwise it finds them at its next poll. With {@link Builder#bindDslContext()} (or {@link
 * Builder#bindDslContext(Settings)}) you bind only a {@code DataSource} and the module binds such a
 * {@code DSLContext}. If you bind a {@code DSLContext} of your own, install the listener on it:
 *
 * <pre>{@code
 * @Provides @Singleton
 * DSLContext dsl(DataSource dataSource, Outbox outbox) {
 *   DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, mySettings);
 *   dsl.configuration().set(outbox.transactionListener());
 *   return dsl;
 * }
 * }</pre>
 *
 * A module with a relay refuses, at injector creation, a bound {@code DSLContext} without it,
 * unless built with {@link Builder#withoutCommitWakeUp()}. (A {@code DSLContext} you make outside
 * Guice from the bound {@code DataSource} cannot be checked: install the listener on it the same
 * way.)
 *
 * <h2>Several outboxes</h2>
 *
 * Each module built with {@link Builder#annotatedWith(Annotation)} binds its outbox, admin and
 * relay with that binding annotation, and reads every binding above with it too, so modules with
 * different annotations (one may have none) live in one injector:
 *
 * <pre>{@code
 * install(OutboxModule.builder().annotatedWith(Names.named("billing")).schema("billing").build());
 * install(OutboxModule.builder().annotatedWith(Names.named("shipping")).schema("shipping").build());
 * bind(DataSource.class).annotatedWith(Names.named("billing")).toInstance(dataSource);
 * bind(DataSource.class).annotatedWith(Names.named("shipping")).toInstance(dataSource);
 * bind(Publisher.class).annotatedWith(Names.named("billing")).toInstance(kafkaPublisher);
 * bind(Publisher.class).annotatedWith(Names.named("shipping")).toInstance(sqsPublisher);
 * // then: @Inject @Named("billing") Outbox billingOutbox
 * }</pre>
 *
 * Two modules with the same annotation (or two without) fail with Guice's duplicate binding error.
 *
 * <h2>Schema and metrics</h2>
 *
 * The outbox is located once, by {@link Builder#schema(String)}: the writer, the relay and the
 * admin all use it, and the bound {@link OutboxAdmin} is the relay's own {@link
 * OutboxRelay#admin()} (unless {@link Builder#writerOnly()}). With {@link
 * Builder#metrics(MeterRegistry)} the relay registers its meters itself, named after its {@link
 * RelayConfig#name()}, and removes them when it is closed. The relay is not started for you: call
 * {@code injector.getInstance(OutboxRelay.class).start()} and close it at shutdown, or let {@link
 * OutboxLifecycle} start and close every module's relay and publisher: {@code
 * injector.getInstance(OutboxLifecycle.class).closeOnShutdown().start()}.
 *
 * <p>Thread-safe once built.
 */
public final class OutboxModule extends AbstractModule {

  private final ModuleKeys keys;
  private final OutboxWiring.Options options;

  private OutboxModule(Builder b) {
    this.keys = b.keys;
    this.options =
        new OutboxWiring.Options(
            OutboxTables.of(b.schema, b.tablePrefix),
            b.writerOnly ? null : b.relayConfig,
            b.relayMetrics,
            b.bindDslContext,
            b.dslSettings,
            b.commitWakeUp);
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
    Binder binder = binder();
    OptionalBinder.newOptionalBinder(binder, keys.of(DataSource.class));
    OptionalBinder.newOptionalBinder(binder, keys.of(Publisher.class));
    OptionalBinder.newOptionalBinder(binder, keys.of(PayloadSerializer.class));
    OptionalBinder.newOptionalBinder(binder, keys.of(HeadersProvider.class));
    Multibinder.newSetBinder(binder, keys.of(RelayListener.class));
    OptionalBinder<DSLContext> dsl =
        OptionalBinder.newOptionalBinder(binder, keys.of(DSLContext.class));
    OutboxWiring wiring = new OutboxWiring(binder, keys, options);
    if (options.bindDslContext()) {
      dsl.setBinding().toProvider(OutboxWiring.provider(wiring::wakingDsl)).in(Singleton.class);
    }
    binder
        .bind(keys.of(Outbox.class))
        .toProvider(OutboxWiring.provider(wiring::outbox))
        .in(Singleton.class);
    binder
        .bind(keys.of(OutboxAdmin.class))
        .toProvider(OutboxWiring.provider(wiring::admin))
        .in(Singleton.class);
    binder
        .bind(keys.of(OutboxRelay.class))
        .toProvider(OutboxWiring.provider(wiring::relay))
        .in(Singleton.class);
    requestInjection(wiring.check());
    // Every module declares the set, so OutboxLifecycle is injectable even with writer-only ones.
    Multibinder<ManagedOutbox> managed = Multibinder.newSetBinder(binder, ManagedOutbox.class);
    if (options.relayConfig() != null) {
      Provider<OutboxRelay> relay = binder.getProvider(keys.of(OutboxRelay.class));
      Provider<Optional<Publisher>> publisher =
          binder.getProvider(keys.of(new TypeLiteral<Optional<Publisher>>() {}));
      managed
          .addBinding()
          .toInstance(
              new ManagedOutbox(keys.module(), relay::get, () -> publisher.get().orElseThrow()));
    }
  }

  /** Configures an {@link OutboxModule}. Not thread-safe. */
  public static final class Builder {
    private String schema = OutboxSchema.DEFAULT_SCHEMA;
    private String tablePrefix = "";
    private RelayConfig relayConfig = RelayConfig.defaults();
    private boolean relayGiven;
    private boolean writerOnly;
    private boolean bindDslContext;
    private @Nullable Settings dslSettings;
    private boolean commitWakeUp = true;
    private ModuleKeys keys = ModuleKeys.unqualified();
    private UnaryOperator<OutboxRelay.Builder> relayMetrics = UnaryOperator.identity();
    private boolean metrics;

    private Builder() {}

    /** The schema holding the outbox tables. Defaults to {@code public}. */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /**
     * The prefix of every outbox table name in the {@link #schema(String) schema}, as given to
     * {@link OutboxSchema#migrate(DataSource, OutboxTables)}; the writer, the relay and the admin
     * all use it. Defaults to none.
     */
    public Builder tablePrefix(String tablePrefix) {
      this.tablePrefix = Objects.requireNonNull(tablePrefix, "tablePrefix");
      return this;
    }

    /** The schema and the table prefix at once; see {@link #schema} and {@link #tablePrefix}. */
    public Builder tables(OutboxTables tables) {
      Objects.requireNonNull(tables, "tables");
      this.schema = tables.schema();
      this.tablePrefix = tables.tablePrefix();
      return this;
    }

    /**
     * Binds the outbox, admin and relay with {@code annotation}, such as {@code
     * Names.named("billing")}, and reads the module's inputs ({@code DataSource}, {@code
     * DSLContext}, {@code Publisher}, {@code PayloadSerializer}, {@code HeadersProvider}, the
     * {@code RelayListener} set) with it too. Defaults to none: unqualified bindings.
     *
     * @throws NullPointerException if {@code annotation} is null
     * @throws IllegalArgumentException if it is not a binding annotation ({@code @Qualifier} or
     *     {@code @BindingAnnotation})
     */
    public Builder annotatedWith(Annotation annotation) {
      this.keys = ModuleKeys.annotatedWith(Objects.requireNonNull(annotation, "annotation"));
      return this;
    }

    /**
     * Binds the outbox, admin and relay with the marker annotation {@code annotationType}, and
     * reads the module's inputs with it; see {@link #annotatedWith(Annotation)}.
     *
     * @throws NullPointerException if {@code annotationType} is null
     * @throws IllegalArgumentException if it is not a binding annotation
     */
    public Builder annotatedWith(Class<? extends Annotation> annotationType) {
      this.keys =
          ModuleKeys.annotatedWith(Objects.requireNonNull(annotationType, "annotationType"));
      return this;
    }

    /** The relay's configuration. Defaults to {@link RelayConfig#defaults()}. */
    public Builder relay(RelayConfig relayConfig) {
      this.relayConfig = Objects.requireNonNull(relayConfig, "relayConfig");
      this.relayGiven = true;
      return this;
    }

    /**
     * Binds no relay and needs no {@link Publisher}: for services that only write events while the
     * relay runs elsewhere, such as the {@code txoutbox relay} command. The bound {@code
     * OutboxRelay} then fails with a message saying so.
     */
    public Builder writerOnly() {
      this.writerOnly = true;
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
     * Also binds {@code DSLContext}: one on the bound {@code DataSource}, PostgreSQL dialect and
     * default jOOQ settings, with the writer's after-commit wake-up installed. Do not bind a {@code
     * DSLContext} yourself then.
     */
    public Builder bindDslContext() {
      this.bindDslContext = true;
      this.dslSettings = null;
      return this;
    }

    /**
     * Like {@link #bindDslContext()}, with {@code settings} for the bound {@code DSLContext}. The
     * module keeps a copy: changing {@code settings} afterwards changes nothing. The outbox's own
     * statements name their schema whatever the settings' render mapping says.
     *
     * @throws NullPointerException if {@code settings} is null
     */
    public Builder bindDslContext(Settings settings) {
      Objects.requireNonNull(settings, "settings");
      this.bindDslContext = true;
      this.dslSettings = (Settings) settings.clone();
      return this;
    }

    /**
     * The relay is not woken when this process's transactions commit; it finds events at its poll
     * interval (or through LISTEN/NOTIFY, if its {@link RelayConfig} says so). For a bound {@code
     * DSLContext} that records no events, such as a relay-only service whose writers run elsewhere.
     * Defaults to woken, which a bound {@code DSLContext} must then allow (see the class comment).
     */
    public Builder withoutCommitWakeUp() {
      this.commitWakeUp = false;
      return this;
    }

    /**
     * Checks the settings and makes the module.
     *
     * @throws IllegalArgumentException if the schema or the table prefix is not valid (the message
     *     names the field and the limit)
     * @throws IllegalStateException if settings contradict each other: {@link #relay(RelayConfig)
     *     relay(...)}, {@link #metrics(OutboxMetrics) metrics(...)} or {@link
     *     #withoutCommitWakeUp()} on a {@link #writerOnly()} module (all three are about the
     *     relay), or {@link #withoutCommitWakeUp()} with {@link #bindDslContext()} (which installs
     *     the wake-up)
     */
    public OutboxModule build() {
      OutboxTables.of(schema, tablePrefix);
      if (writerOnly) {
        requireNoRelaySetting(metrics, "metrics(...)");
        requireNoRelaySetting(relayGiven, "relay(...)");
        requireNoRelaySetting(!commitWakeUp, "withoutCommitWakeUp()");
      }
      if (!commitWakeUp && bindDslContext) {
        throw new IllegalStateException(
            "withoutCommitWakeUp() must not be combined with bindDslContext(), whose DSLContext"
                + " carries the wake-up, but both were given");
      }
      return new OutboxModule(this);
    }

    private static void requireNoRelaySetting(boolean given, String setting) {
      if (given) {
        throw new IllegalStateException(
            setting + " must be given to a module with a relay but the module is writerOnly()");
      }
    }
  }
}
