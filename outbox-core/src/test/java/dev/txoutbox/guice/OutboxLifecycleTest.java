package dev.txoutbox.guice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.name.Named;
import com.google.inject.name.Names;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.guice.OutboxLifecycle.BrokerCheckPolicy;
import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboxLifecycle} over real PostgreSQL schemas: it starts the relay of every {@link
 * OutboxModule} in the injector, closes the relays before the publishers, checks brokers first.
 */
class OutboxLifecycleTest {

  private static final Named BILLING = Names.named("billing");
  private static final Named SHIPPING = Names.named("shipping");

  private static TestDatabase billingDb;
  private static TestDatabase shippingDb;

  /** What happened, in order, across every relay and publisher of a test. */
  private final List<String> events = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void databases() {
    billingDb = TestDatabase.create("lifecycle_billing");
    shippingDb = TestDatabase.create("lifecycle_shipping");
  }

  @AfterAll
  static void drop() {
    billingDb.close();
    shippingDb.close();
  }

  @Test
  void startsTheRelayOfEveryModuleAndClosesEveryRelayBeforeAnyPublisher() throws Exception {
    TrackingPublisher billingPublisher =
        new TrackingPublisher("billing", BrokerCheck.reachable("ok"));
    TrackingPublisher shippingPublisher =
        new TrackingPublisher("shipping", BrokerCheck.reachable("ok"));
    Injector injector = injector(billingPublisher, shippingPublisher);
    OutboxRelay billingRelay = injector.getInstance(Key.get(OutboxRelay.class, BILLING));
    OutboxRelay shippingRelay = injector.getInstance(Key.get(OutboxRelay.class, SHIPPING));
    billingPublisher.relays = List.of(billingRelay, shippingRelay);
    shippingPublisher.relays = List.of(billingRelay, shippingRelay);

    OutboxLifecycle lifecycle = injector.getInstance(OutboxLifecycle.class);
    assertThat(injector.getInstance(OutboxLifecycle.class)).isSameAs(lifecycle);
    assertThat(lifecycle.outboxNames())
        .containsExactly(
            "OutboxModule @com.google.inject.name.Named(\"billing\")",
            "OutboxModule @com.google.inject.name.Named(\"shipping\")");
    assertThat(lifecycle.isReady()).isFalse();

    Map<String, BrokerCheck> checks =
        lifecycle.start(BrokerCheckPolicy.FAIL_FAST, Duration.ofSeconds(5));

    assertThat(checks.values())
        .extracting(BrokerCheck::status)
        .containsOnly(BrokerCheck.Status.REACHABLE);
    assertThat(billingRelay.isRunning()).isTrue();
    assertThat(shippingRelay.isRunning()).isTrue();
    assertThat(lifecycle.isReady()).isTrue();
    UUID invoice = record(injector, BILLING, "invoice");
    UUID parcel = record(injector, SHIPPING, "parcel");
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                billingPublisher.published().contains(invoice)
                    && shippingPublisher.published().contains(parcel));

    lifecycle.close();

    assertThat(billingRelay.isRunning()).isFalse();
    assertThat(shippingRelay.isRunning()).isFalse();
    assertThat(events)
        .as("each publisher is closed once, after both relays stopped")
        .containsExactlyInAnyOrder(
            "billing closed after relays stopped: true",
            "shipping closed after relays stopped: true");
    assertThat(lifecycle.isReady()).isFalse();
    lifecycle.close(); // idempotent
    assertThat(events).hasSize(2);
    assertThatThrownBy(lifecycle::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("OutboxLifecycle must be open but was closed");
  }

  @Test
  void failFastStartsNoRelayWhenABrokerIsUnreachable() throws Exception {
    TrackingPublisher billingPublisher =
        new TrackingPublisher("billing", BrokerCheck.reachable("ok"));
    TrackingPublisher shippingPublisher =
        new TrackingPublisher(
            "shipping", BrokerCheck.unreachable("shipping broker at 127.0.0.1:1 refused", null));
    Injector injector = injector(billingPublisher, shippingPublisher);
    OutboxLifecycle lifecycle = injector.getInstance(OutboxLifecycle.class);
    try {
      assertThatThrownBy(() -> lifecycle.start(BrokerCheckPolicy.FAIL_FAST, Duration.ofSeconds(5)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "OutboxLifecycle started no relay: a broker check failed for OutboxModule"
                  + " @com.google.inject.name.Named(\"shipping\"): shipping broker at 127.0.0.1:1"
                  + " refused");

      assertThat(injector.getInstance(Key.get(OutboxRelay.class, BILLING)).isRunning()).isFalse();
      assertThat(injector.getInstance(Key.get(OutboxRelay.class, SHIPPING)).isRunning()).isFalse();
      assertThat(lifecycle.isReady()).isFalse();
    } finally {
      lifecycle.close();
    }
  }

  @Test
  void reportStartsAnywayAndIsReadyOnceTheBrokerAnswers() throws Exception {
    TrackingPublisher publisher =
        new TrackingPublisher("billing", BrokerCheck.unreachable("billing broker is down", null));
    Injector injector = injector(publisher, publisher); // one publisher behind both relays
    OutboxLifecycle lifecycle = injector.getInstance(OutboxLifecycle.class);
    try {
      Map<String, BrokerCheck> checks =
          lifecycle.start(BrokerCheckPolicy.REPORT, Duration.ofSeconds(5));

      assertThat(checks).hasSize(2);
      assertThat(publisher.checks).as("one check per distinct publisher").isEqualTo(1);
      assertThat(injector.getInstance(Key.get(OutboxRelay.class, BILLING)).isRunning()).isTrue();
      assertThat(lifecycle.isReady()).isFalse();

      publisher.verdict = BrokerCheck.reachable("billing broker answered");
      lifecycle.checkBrokers(Duration.ofSeconds(5));
      assertThat(lifecycle.isReady()).isTrue();
    } finally {
      lifecycle.close();
    }
    assertThat(events).containsExactly("billing closed after relays stopped: true");
  }

  @Test
  void anInjectorWithWriterOnlyModulesHasAnEmptyLifecycle() {
    Injector injector =
        Guice.createInjector(
            OutboxModule.builder().schema(billingDb.schema()).writerOnly().build(),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(DataSource.class).toInstance(billingDb.dataSource());
              }
            });
    OutboxLifecycle lifecycle = injector.getInstance(OutboxLifecycle.class);
    assertThat(lifecycle.outboxNames()).isEmpty();
    lifecycle.start();
    assertThat(lifecycle.isReady()).isTrue();
    lifecycle.close();
  }

  @Test
  void plainJavaBuilderRunsTheSameWayAndRejectsDuplicateNames() throws Exception {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(billingDb.dataSource())
            .schema(billingDb.schema())
            .publisher(publisher)
            .build();
    OutboxLifecycle.Builder builder = OutboxLifecycle.builder().outbox("billing", relay, publisher);
    assertThatThrownBy(() -> builder.outbox("billing", relay, publisher))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must be unique but 'billing' was already added");
    OutboxLifecycle lifecycle = builder.build().closeOnShutdown();

    lifecycle.start(BrokerCheckPolicy.REPORT, Duration.ofSeconds(1));
    assertThat(relay.isRunning()).isTrue();
    assertThat(lifecycle.checkBrokers(Duration.ofSeconds(1)).get("billing").status())
        .isEqualTo(BrokerCheck.Status.NOT_CHECKED);
    lifecycle.close();
    assertThat(relay.isRunning()).isFalse();
    assertThatThrownBy(() -> lifecycle.start(BrokerCheckPolicy.NONE, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout must be positive");
  }

  private Injector injector(Publisher billing, Publisher shipping) {
    return Guice.createInjector(
        OutboxModule.builder()
            .annotatedWith(BILLING)
            .schema(billingDb.schema())
            .bindDslContext()
            .build(),
        OutboxModule.builder()
            .annotatedWith(SHIPPING)
            .schema(shippingDb.schema())
            .bindDslContext()
            .build(),
        OutboxModule.builder().schema(billingDb.schema()).writerOnly().build(),
        new AbstractModule() {
          @Override
          protected void configure() {
            bind(DataSource.class).toInstance(billingDb.dataSource());
            bind(DataSource.class).annotatedWith(BILLING).toInstance(billingDb.dataSource());
            bind(DataSource.class).annotatedWith(SHIPPING).toInstance(shippingDb.dataSource());
            bind(Publisher.class).annotatedWith(BILLING).toInstance(billing);
            bind(Publisher.class).annotatedWith(SHIPPING).toInstance(shipping);
          }
        });
  }

  private static UUID record(Injector injector, Named outbox, String aggregate) {
    Outbox writer = injector.getInstance(Key.get(Outbox.class, outbox));
    return injector
        .getInstance(Key.get(DSLContext.class, outbox))
        .transactionResult(
            tx -> writer.record(tx.dsl(), aggregate, "a-1", aggregate + ".made", "{}"));
  }

  /**
   * A recording publisher with a scripted broker check, that notes at close whether every relay of
   * the test had already stopped.
   */
  private final class TrackingPublisher implements Publisher {
    private final String name;
    private final RecordingPublisher recording = new RecordingPublisher();
    volatile BrokerCheck verdict;
    volatile List<OutboxRelay> relays = List.of();
    volatile int checks;

    TrackingPublisher(String name, BrokerCheck verdict) {
      this.name = name;
      this.verdict = verdict;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      return recording.publish(messages);
    }

    List<UUID> published() {
      return recording.published().stream().map(OutboxMessage::id).toList();
    }

    @Override
    public BrokerCheck checkBroker(Duration timeout) {
      checks++;
      return verdict;
    }

    @Override
    public void close() {
      events.add(
          name
              + " closed after relays stopped: "
              + relays.stream().noneMatch(OutboxRelay::isRunning));
    }
  }
}
