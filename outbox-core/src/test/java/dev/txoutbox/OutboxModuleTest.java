package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
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

  @Test
  void bindsWriterRelayAndAdminFromADataSourceAndAPublisher() {
    RecordingPublisher publisher = new RecordingPublisher();
    Injector injector =
        injector(
            OutboxModule.builder()
                .schema(db.schema())
                .bindDslContext()
                .relay(
                    RelayConfig.builder()
                        .maxPollInterval(Duration.ofMinutes(5))
                        .minPollInterval(Duration.ofMinutes(5))
                        .build())
                .build(),
            publisher);
    Outbox outbox = injector.getInstance(Outbox.class);
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    DSLContext dsl = injector.getInstance(DSLContext.class);
    assertThat(injector.getInstance(Outbox.class)).isSameAs(outbox);
    relay.start();
    try {
      UUID id =
          dsl.transactionResult(tx -> outbox.record(tx.dsl(), "order", "g", "order.created", "{}"));
      // Polling every 5 minutes: the module's DSLContext carries the after-commit wake-up.
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.publishCounts().containsKey(id));
      assertThat(injector.getInstance(OutboxAdmin.class).pendingCount()).isZero();
    } finally {
      relay.close();
    }
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
        Guice.createInjector(
            OutboxModule.builder().schema(db.schema()).writerOnly().build(),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(DSLContext.class).toInstance(DSL.using(db.dataSource(), SQLDialect.POSTGRES));
              }
            });
    assertThat(injector.getInstance(OutboxAdmin.class).deadLetterCount()).isZero();
    assertThat(injector.getInstance(Outbox.class)).isNotNull();
  }

  @Test
  void missingDatabaseFailsAtInjectorCreationSayingWhatToBind() {
    assertThatThrownBy(() -> Guice.createInjector(OutboxModule.builder().writerOnly().build()))
        .isInstanceOf(CreationException.class)
        .hasMessageContaining("OutboxModule needs the database: bind a")
        .hasMessageContaining("DataSource")
        .hasMessageContaining("DSLContext");
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
}
