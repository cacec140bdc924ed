package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox is located once, on the relay's builder: its admin, its meters and a writer built on
 * it follow the relay's schema, name and clock, and cannot be pointed elsewhere.
 */
class RelayOwnsItsOutboxTest {

  private static TestDatabase drained;
  private static TestDatabase other;
  private static DSLContext dsl;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<OutboxRelay> relays = new ArrayList<>();

  @BeforeAll
  static void databases() {
    drained = TestDatabase.create("owned");
    other = TestDatabase.create("owned_other");
    dsl = DSL.using(drained.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  static void drop() {
    drained.close();
    other.close();
  }

  @BeforeEach
  void clean() {
    drained.execute("TRUNCATE " + drained.schema() + ".outbox_events");
    other.execute("TRUNCATE " + other.schema() + ".outbox_events");
  }

  @AfterEach
  void closeRelays() {
    relays.forEach(r -> r.close(Duration.ofSeconds(5)));
  }

  private OutboxRelay relay(OutboxRelay.Builder builder) {
    OutboxRelay relay = builder.build();
    relays.add(relay);
    return relay;
  }

  private OutboxRelay.Builder builder(String name) {
    return TestSupport.relayBuilder(drained, new RecordingPublisher())
        .config(RelayConfig.builder().name(name).build());
  }

  private static void write(TestDatabase db, int n) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{}"));
    }
    DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .transaction(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private double gauge(String relay, String name) {
    return registry.get(name).tag("relay", relay).gauge().value();
  }

  @Test
  void theGaugesWatchTheSchemaTheRelayDrainsAndNoOther() throws Exception {
    write(other, 3);
    write(drained, 5);
    OutboxRelay relay =
        relay(
            builder("orders")
                .metrics(
                    OutboxMetrics.builder(registry)
                        .refreshInterval(Duration.ofMillis(20))
                        .build()));

    await().until(() -> gauge("orders", "outbox.events.pending") == 5);
    assertThat(relay.schema()).isEqualTo(drained.schema());
    assertThat(relay.admin().pendingCount()).isEqualTo(5);

    assertThat(relay.runOnce()).isEqualTo(5);

    await().until(() -> gauge("orders", "outbox.events.pending") == 0);
    assertThat(relay.admin().pendingCount()).isZero();
    assertThat(OutboxAdmin.create(other.dataSource(), other.schema()).pendingCount())
        .as("the other schema's events are there, and the gauges never counted them")
        .isEqualTo(3);
  }

  @Test
  void nothingLetsTheMetricsBeGivenAnotherSchemaNameOrDatabase() {
    List<Class<?>> elsewhere =
        List.of(String.class, OutboxAdmin.class, DataSource.class, DSLContext.class);
    List<Method> methods = new ArrayList<>();
    methods.addAll(Arrays.asList(OutboxMetrics.class.getMethods()));
    methods.addAll(Arrays.asList(OutboxMetrics.Builder.class.getMethods()));

    assertThat(methods)
        .filteredOn(m -> m.getDeclaringClass() != Object.class)
        .isNotEmpty()
        .allSatisfy(
            m ->
                assertThat(m.getParameterTypes())
                    .as(m.toString())
                    .doesNotContainAnyElementsOf(elsewhere));
    assertThat(OutboxMetrics.class.getConstructors()).isEmpty();
  }

  @Test
  void theMetersCarryTheRelaysNameAndItsCloseRemovesThem() {
    OutboxRelay relay = relay(builder("billing-relay").metrics(registry));
    relay.start();

    // The per-event-type failure counters come with the first failure.
    assertThat(registry.getMeters())
        .hasSize(8)
        .allSatisfy(m -> assertThat(m.getId().getTag("relay")).isEqualTo("billing-relay"));
    assertThat(registry.getMeters())
        .extracting(Meter::getId)
        .extracting(Meter.Id::getName)
        .contains("outbox.events.pending", "outbox.events.published");

    relay.close();

    assertThat(registry.getMeters()).isEmpty();
    await()
        .until(
            () ->
                Thread.getAllStackTraces().keySet().stream()
                    .noneMatch(t -> t.getName().equals("outbox-relay-billing-relay-metrics")));
  }

  @Test
  void aRelayNeverStartedRemovesItsMetersWhenClosed() {
    OutboxRelay relay = relay(builder("idle").metrics(registry));
    assertThat(registry.getMeters()).isNotEmpty();

    relay.close();

    assertThat(registry.getMeters()).isEmpty();
  }

  @Test
  void aSecondRelayOfTheSameNameInOneRegistryIsRefusedAtBuild() {
    OutboxRelay first = relay(builder("orders").metrics(registry));

    assertThatThrownBy(() -> builder("orders").metrics(registry).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'orders' already has outbox meters");
    relay(builder("billing").metrics(registry));

    first.close();
    relay(builder("orders").metrics(registry));
  }

  @Test
  void theAdminIsOnTheRelaysSchemaAndClock() {
    TestClock clock = TestClock.at(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    OutboxRelay relay = relay(builder("clocked").clock(clock));
    Outbox outbox = Outbox.builder().relay(relay).build();
    dsl.transaction(
        tx ->
            outbox.record(
                tx.dsl(),
                OutboxEvent.builder("order", "o-1", "order.created")
                    .payload("{}")
                    .notBefore(clock.instant().plus(Duration.ofHours(1)))
                    .build()));

    assertThat(relay.admin()).isSameAs(relay.admin());
    assertThat(relay.admin().status().dueNow()).isZero();
    clock.advance(Duration.ofHours(2));
    assertThat(relay.admin().status().dueNow()).isEqualTo(1);
    assertThat(relay.admin().status().pending()).isEqualTo(1);
  }

  @Test
  void aWriterBuiltOnTheRelayRecordsIntoItsSchemaAndWakesItAfterEachCommit() {
    OutboxRelay real = relay(builder("orders"));
    AtomicInteger wakeUps = new AtomicInteger();
    OutboxRelay counting = new WakeUpCounting(real, wakeUps);
    Outbox outbox = Outbox.builder().relay(counting).build();
    DSLContext waking = DSL.using(drained.dataSource(), SQLDialect.POSTGRES);
    waking.configuration().set(outbox.transactionListener());

    waking.transaction(tx -> outbox.record(tx.dsl(), "order", "w", "order.created", "{}"));
    assertThat(wakeUps).hasValue(1);
    assertThatThrownBy(
            () ->
                waking.transaction(
                    tx -> {
                      outbox.record(tx.dsl(), "order", "w", "order.created", "{}");
                      throw new IllegalStateException("roll back");
                    }))
        .hasMessageContaining("roll back");

    assertThat(wakeUps).as("no wake-up for a rollback").hasValue(1);
    assertThat(real.admin().pendingCount()).isEqualTo(1);
    assertThat(OutboxAdmin.create(other.dataSource(), other.schema()).pendingCount()).isZero();
  }

  @Test
  void oneInstalledListenerWakesTheRelayOfEveryOutboxTheTransactionWrote() {
    AtomicInteger ordersWakeUps = new AtomicInteger();
    AtomicInteger billingWakeUps = new AtomicInteger();
    Outbox orders =
        Outbox.builder().relay(new WakeUpCounting(relay(builder("orders")), ordersWakeUps)).build();
    Outbox billing =
        Outbox.builder()
            .relay(
                new WakeUpCounting(
                    relay(
                        TestSupport.relayBuilder(other, new RecordingPublisher())
                            .config(RelayConfig.builder().name("billing").build())),
                    billingWakeUps))
            .build();
    DSLContext waking = DSL.using(drained.dataSource(), SQLDialect.POSTGRES);
    // Only the first writer's listener, as a service with several outboxes installs one.
    waking.configuration().set(orders.transactionListener());

    waking.transaction(
        tx -> {
          orders.record(tx.dsl(), "order", "o-1", "order.created", "{}");
          billing.record(tx.dsl(), "invoice", "i-1", "invoice.created", "{}");
        });
    assertThat(ordersWakeUps).hasValue(1);
    assertThat(billingWakeUps).as("the other outbox's relay, woken too").hasValue(1);

    waking.transaction(tx -> billing.record(tx.dsl(), "invoice", "i-2", "invoice.created", "{}"));
    assertThat(ordersWakeUps).as("not written, not woken").hasValue(1);
    assertThat(billingWakeUps).hasValue(2);

    assertThatThrownBy(
            () ->
                waking.transaction(
                    tx -> {
                      billing.record(tx.dsl(), "invoice", "i-3", "invoice.created", "{}");
                      throw new IllegalStateException("roll back");
                    }))
        .hasMessageContaining("roll back");
    assertThat(billingWakeUps).as("no wake-up for a rollback").hasValue(2);

    // Both listeners installed: each written outbox's relay is still woken once per commit, and
    // only at the outermost commit.
    waking.configuration().set(orders.transactionListener(), billing.transactionListener());
    waking.transaction(
        outer -> {
          orders.record(outer.dsl(), "order", "o-2", "order.created", "{}");
          outer
              .dsl()
              .transaction(
                  inner -> billing.record(inner.dsl(), "invoice", "i-4", "invoice.created", "{}"));
          assertThat(billingWakeUps).as("not at the savepoint's release").hasValue(2);
        });
    assertThat(ordersWakeUps).hasValue(2);
    assertThat(billingWakeUps).hasValue(3);
    assertThat(OutboxAdmin.create(drained.dataSource(), drained.schema()).pendingCount())
        .isEqualTo(2);
    assertThat(OutboxAdmin.create(other.dataSource(), other.schema()).pendingCount()).isEqualTo(3);
  }

  /** The real relay's schema and admin, counting its wake-ups instead of passing them on. */
  private record WakeUpCounting(OutboxRelay relay, AtomicInteger wakeUps) implements OutboxRelay {
    @Override
    public void start() {
      relay.start();
    }

    @Override
    public void wakeUp() {
      wakeUps.incrementAndGet();
    }

    @Override
    public boolean isRunning() {
      return relay.isRunning();
    }

    @Override
    public RelayConfig config() {
      return relay.config();
    }

    @Override
    public String schema() {
      return relay.schema();
    }

    @Override
    public OutboxAdmin admin() {
      return relay.admin();
    }

    @Override
    public int runOnce() throws InterruptedException {
      return relay.runOnce();
    }

    @Override
    public DrainResult drain() throws InterruptedException {
      return relay.drain();
    }

    @Override
    public void awaitTermination() throws InterruptedException {
      relay.awaitTermination();
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
      return relay.awaitTermination(timeout);
    }

    @Override
    public OutboxRelay closeOnShutdown() {
      relay.closeOnShutdown();
      return this;
    }

    @Override
    public void close() {
      relay.close();
    }

    @Override
    public void close(Duration timeout) {
      relay.close(timeout);
    }
  }

  @Test
  void aWriterGivenAnotherSchemaThanItsRelayIsRefused() {
    OutboxRelay relay = relay(builder("orders"));

    assertThatThrownBy(() -> Outbox.builder().schema(other.schema()).relay(relay).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "schema(...) must be the schema of the relay(...) this writer feeds, '"
                + drained.schema()
                + "', but was '"
                + other.schema()
                + "'");
    assertThat(Outbox.builder().schema(drained.schema()).relay(relay).build()).isNotNull();
    assertThatThrownBy(() -> Outbox.builder().relay(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("relay");
  }
}
