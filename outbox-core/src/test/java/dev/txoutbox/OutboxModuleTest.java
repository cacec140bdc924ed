package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.name.Names;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.testing.TestMessages;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OutboxModuleTest {

  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("guice");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  /** An injector of {@code module} with the test's data source and {@code publisher} bound. */
  private static Injector injector(OutboxModule module, Publisher publisher) {
    return Guice.createInjector(
        module,
        new AbstractModule() {
          @Override
          protected void configure() {
            bind(DataSource.class).toInstance(db.dataSource());
            bind(Publisher.class).toInstance(publisher);
          }
        });
  }

  /**
   * An injector of {@code module} with a plain DSLContext of the user's (no DataSource, no
   * after-commit wake-up) and a publisher bound.
   */
  private static Injector injectorWithPlainDsl(OutboxModule module) {
    return Guice.createInjector(
        module,
        new AbstractModule() {
          @Override
          protected void configure() {
            bind(DSLContext.class).toInstance(DSL.using(db.dataSource(), SQLDialect.POSTGRES));
            bind(Publisher.class).toInstance(new RecordingPublisher());
          }
        });
  }

  @Test
  void bindsWriterRelayAndAdminFromADataSourceAndAPublisher() {
    RecordingPublisher publisher = new RecordingPublisher();
    Injector injector =
        injector(
            OutboxModule.builder()
                .schema(db.schema())
                .bindDslContext()
                .relay(pollingEveryFiveMinutes())
                .build(),
            publisher);
    assertThat(injector.getInstance(Outbox.class)).isSameAs(injector.getInstance(Outbox.class));
    // Polling every 5 minutes: the module's DSLContext carries the after-commit wake-up.
    assertWakesTheRelay(injector, injector.getInstance(DSLContext.class), publisher);
    assertThat(injector.getInstance(OutboxAdmin.class).pendingCount()).isZero();
  }

  @Test
  void theRelayBindsItsOwnAdminAndMetricsOnTheModulesSchema() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Injector injector =
        injector(
            OutboxModule.builder()
                .schema(db.schema())
                .relay(RelayConfig.builder().name("guiced").build())
                .metrics(registry)
                .build(),
            new RecordingPublisher());
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    try {
      assertThat(relay.schema()).isEqualTo(db.schema());
      assertThat(injector.getInstance(OutboxAdmin.class)).isSameAs(relay.admin());
      assertThat(registry.getMeters())
          .isNotEmpty()
          .allSatisfy(m -> assertThat(m.getId().getTag("relay")).isEqualTo("guiced"));
    } finally {
      relay.close();
    }
    assertThat(registry.getMeters()).as("the relay removed its meters").isEmpty();
  }

  /** Per-type retry policies reach the injected relay with the configuration that holds them. */
  @Test
  void theInjectedRelayKeepsThePerTypeRetryPolicies() {
    RetryPolicy payments =
        RetryPolicy.of(200, Backoff.exponential(Duration.ofSeconds(5), Duration.ofMinutes(30)));
    RetryPolicy orders =
        RetryPolicy.of(3, Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1)))
            .withMaxAge(Duration.ofMinutes(1));
    Injector injector =
        injector(
            OutboxModule.builder()
                .schema(db.schema())
                .relay(
                    RelayConfig.builder()
                        .name("guiced-policies")
                        .retryPolicy("payment.captured", payments)
                        .aggregateRetryPolicy("order", orders)
                        .build())
                .build(),
            new RecordingPublisher());
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    try {
      assertThat(relay.config().retryPolicy(message("order", "payment.captured")))
          .isEqualTo(payments);
      assertThat(relay.config().retryPolicy(message("order", "order.created"))).isEqualTo(orders);
      assertThat(relay.config().retryPolicy(message("cart", "cart.emptied")).maxAttempts())
          .isEqualTo(RelayConfig.defaults().maxAttempts());
    } finally {
      relay.close();
    }
  }

  private static OutboxMessage message(String aggregateType, String eventType) {
    return TestMessages.message().aggregateType(aggregateType).eventType(eventType).build();
  }

  @Test
  void metricsWithoutARelayAreRefused() {
    assertThatThrownBy(
            () -> OutboxModule.builder().writerOnly().metrics(new SimpleMeterRegistry()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "metrics(...) must be given to a module with a relay but the module is writerOnly()");
  }

  @Test
  void acceptsAUserBoundDslContextInsteadOfADataSource() {
    Injector injector =
        injectorWithPlainDsl(OutboxModule.builder().schema(db.schema()).writerOnly().build());
    assertThat(injector.getInstance(OutboxAdmin.class).deadLetterCount()).isZero();
    assertThat(injector.getInstance(Outbox.class)).isNotNull();
  }

  @Test
  void missingDatabaseFailsAtInjectorCreationSayingWhatToBind() {
    assertThatThrownBy(() -> Guice.createInjector(OutboxModule.builder().writerOnly().build()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining(
            "OutboxModule needs the database: bind a DataSource (for example"
                + " bind(DataSource.class).toInstance(hikariDataSource)) or a DSLContext");
  }

  @Test
  void missingPublisherFailsAtInjectorCreationSayingWhatToBind() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    OutboxModule.create(),
                    new AbstractModule() {
                      @Override
                      protected void configure() {
                        bind(DataSource.class).toInstance(db.dataSource());
                      }
                    }))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("relay needs a")
        .hasMessageContaining("Publisher")
        .hasMessageContaining("writerOnly()");
  }

  @Test
  void contradictorySettingsAreRefused() {
    assertThatThrownBy(
            () -> OutboxModule.builder().writerOnly().relay(RelayConfig.defaults()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "relay(...) must be given to a module with a relay but the module is writerOnly()");
    assertThatThrownBy(
            () -> OutboxModule.builder().relay(RelayConfig.defaults()).writerOnly().build())
        .as("in either order")
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("relay(...) must be given to a module with a relay");
    assertThatThrownBy(() -> OutboxModule.builder().writerOnly().withoutCommitWakeUp().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "withoutCommitWakeUp() must be given to a module with a relay but the module is"
                + " writerOnly()");
    assertThatThrownBy(() -> OutboxModule.builder().bindDslContext().withoutCommitWakeUp().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "withoutCommitWakeUp() must not be combined with bindDslContext(), whose DSLContext"
                + " carries the wake-up, but both were given");
  }

  @Test
  void theBoundDslContextTakesTheGivenSettingsAndStillWakesTheRelay() {
    Settings settings = new Settings().withRenderFormatted(true).withQueryTimeout(7);
    OutboxModule module =
        OutboxModule.builder()
            .schema(db.schema())
            .bindDslContext(settings)
            .relay(pollingEveryFiveMinutes())
            .build();
    settings.setQueryTimeout(99); // the module keeps a copy
    RecordingPublisher publisher = new RecordingPublisher();
    Injector injector = injector(module, publisher);
    DSLContext dsl = injector.getInstance(DSLContext.class);
    assertThat(dsl.settings().isRenderFormatted()).isTrue();
    assertThat(dsl.settings().getQueryTimeout()).isEqualTo(7);
    assertWakesTheRelay(injector, dsl, publisher);
  }

  @Test
  void aUserBoundDslContextWithoutTheWakeUpIsRefusedAtInjectorCreation() {
    assertThatThrownBy(
            () -> injectorWithPlainDsl(OutboxModule.builder().schema(db.schema()).build()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining(
            "OutboxModule was given a DSLContext of your own without the writer's after-commit"
                + " wake-up, so its relay would find new events only at its next poll")
        .hasMessageContaining("dsl.configuration().set(outbox.transactionListener())")
        .hasMessageContaining("bindDslContext()")
        .hasMessageContaining("withoutCommitWakeUp()");
  }

  @Test
  void aUserBoundDslContextCarryingTheWakeUpWakesTheRelay() {
    RecordingPublisher publisher = new RecordingPublisher();
    Injector injector =
        Guice.createInjector(
            OutboxModule.builder().schema(db.schema()).relay(pollingEveryFiveMinutes()).build(),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(Publisher.class).toInstance(publisher);
              }

              @Provides
              @Singleton
              DSLContext dsl(Outbox outbox) {
                DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
                dsl.configuration().set(outbox.transactionListener());
                return dsl;
              }
            });
    assertWakesTheRelay(injector, injector.getInstance(DSLContext.class), publisher);
  }

  @Test
  void aTablePrefixReachesTheWriterTheRelayAndTheAdmin() throws Exception {
    OutboxTables tables = OutboxTables.of(db.schema(), "mod_");
    OutboxSchema.migrate(db.dataSource(), tables);
    RecordingPublisher publisher = new RecordingPublisher();
    Injector injector =
        injector(
            OutboxModule.builder()
                .tables(tables)
                .bindDslContext()
                .relay(pollingEveryFiveMinutes())
                .build(),
            publisher);
    Outbox outbox = injector.getInstance(Outbox.class);
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    try {
      UUID id =
          injector
              .getInstance(DSLContext.class)
              .transactionResult(
                  tx -> outbox.record(tx.dsl(), "order", "p", "order.created", "{}"));
      assertThat(injector.getInstance(OutboxAdmin.class).pendingCount()).isEqualTo(1);
      assertThat(
              DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                  .fetchCount(DSL.table(DSL.name(db.schema(), "mod_outbox_events"))))
          .isEqualTo(1);

      assertThat(relay.drain().published()).containsExactly(id);
      assertThat(injector.getInstance(OutboxAdmin.class).pendingCount()).isZero();
    } finally {
      relay.close();
    }
  }

  @Test
  void anInvalidTablePrefixIsRefusedWhenTheModuleIsBuilt() {
    assertThatThrownBy(() -> OutboxModule.builder().tablePrefix("Bill-").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tablePrefix");
  }

  @Test
  void withoutCommitWakeUpAcceptsAUserBoundDslContextWithoutTheListener() {
    Injector injector =
        injectorWithPlainDsl(
            OutboxModule.builder().schema(db.schema()).withoutCommitWakeUp().build());
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    try {
      assertThat(relay.schema()).isEqualTo(db.schema());
    } finally {
      relay.close();
    }
  }

  @Test
  void bindsTheUsersSerializerHeadersProviderAndRelayListeners() throws Exception {
    RecordingPublisher publisher = new RecordingPublisher();
    List<String> heard = new CopyOnWriteArrayList<>();
    Injector injector =
        Guice.createInjector(
            OutboxModule.builder().schema(db.schema()).bindDslContext().build(),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(DataSource.class).toInstance(db.dataSource());
                bind(Publisher.class).toInstance(publisher);
                bind(PayloadSerializer.class).toInstance(p -> "{\"amount\":" + p + "}");
                bind(HeadersProvider.class).toInstance(() -> Map.of("tenant", "acme"));
                Multibinder<RelayListener> listeners =
                    Multibinder.newSetBinder(binder(), RelayListener.class);
                listeners.addBinding().toInstance(recording("first", heard));
                listeners.addBinding().toInstance(recording("second", heard));
              }
            });
    Outbox outbox = injector.getInstance(Outbox.class);
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    try {
      UUID id =
          injector
              .getInstance(DSLContext.class)
              .transactionResult(tx -> outbox.record(tx.dsl(), "order", "s", "order.paid", 42));
      assertThat(relay.runOnce()).isEqualTo(1);
      OutboxMessage sent = publisher.published().get(0);
      assertThat(sent.id()).isEqualTo(id);
      assertThat(sent.payload()).isEqualTo("{\"amount\": 42}");
      assertThat(sent.headers()).containsEntry("tenant", "acme");
      assertThat(heard).containsExactlyInAnyOrder("first " + id, "second " + id);
    } finally {
      relay.close();
    }
  }

  @Test
  void aNonBindingAnnotationIsRefused() {
    assertThatThrownBy(() -> OutboxModule.builder().annotatedWith(Deprecated.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a binding annotation");
  }

  @Test
  void aQualifiedModuleSaysWhichAnnotationItsMissingBindingsNeed() {
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    OutboxModule.builder().annotatedWith(Names.named("billing")).build(),
                    new AbstractModule() {
                      @Override
                      protected void configure() {
                        bind(DataSource.class).toInstance(db.dataSource()); // unqualified
                        bind(Publisher.class).toInstance(new RecordingPublisher());
                      }
                    }))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining(
            "OutboxModule @Named(\"billing\") needs the database: bind a DataSource annotated"
                + " with @Named(\"billing\") (for example"
                + " bind(DataSource.class).annotatedWith(...).toInstance(hikariDataSource)) or a"
                + " DSLContext annotated with @Named(\"billing\")");
    assertThatThrownBy(
            () ->
                Guice.createInjector(
                    OutboxModule.builder().annotatedWith(Names.named("billing")).build(),
                    new AbstractModule() {
                      @Override
                      protected void configure() {
                        bind(DataSource.class)
                            .annotatedWith(Names.named("billing"))
                            .toInstance(db.dataSource());
                        bind(Publisher.class).toInstance(new RecordingPublisher()); // unqualified
                      }
                    }))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining(
            "OutboxModule @Named(\"billing\")'s relay needs a Publisher annotated with"
                + " @Named(\"billing\")");
  }

  private static RelayListener recording(String name, List<String> heard) {
    return new RelayListener() {
      @Override
      public void published(OutboxMessage message) {
        heard.add(name + " " + message.id());
      }
    };
  }

  private static RelayConfig pollingEveryFiveMinutes() {
    return RelayConfig.builder()
        .maxPollInterval(Duration.ofMinutes(5))
        .minPollInterval(Duration.ofMinutes(5))
        .build();
  }

  /**
   * With polling every 5 minutes, an event recorded through {@code dsl} arrives only if its commit
   * wakes the relay. A first event, there before the relay starts, is published by its first cycle;
   * once it is acknowledged, that cycle has claimed, so the relay then waits for 5 minutes unless
   * woken (a wake-up arriving before it waits is not lost).
   */
  private static void assertWakesTheRelay(
      Injector injector, DSLContext dsl, RecordingPublisher publisher) {
    Outbox outbox = injector.getInstance(Outbox.class);
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    UUID first =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .transactionResult(tx -> outbox.record(tx.dsl(), "order", "w", "order.created", "{}"));
    relay.start();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> publisher.publishCounts().containsKey(first));
      UUID id =
          dsl.transactionResult(tx -> outbox.record(tx.dsl(), "order", "w", "order.paid", "{}"));
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.publishCounts().containsKey(id));
    } finally {
      relay.close();
    }
  }
}
