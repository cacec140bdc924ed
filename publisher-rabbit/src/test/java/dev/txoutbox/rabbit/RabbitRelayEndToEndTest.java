package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Delivery;
import dev.txoutbox.Backoff;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Writer, relay, RabbitMQ and a consumer together: events written in database transactions reach
 * the queue, and an event is marked processed only once the broker confirmed it.
 */
class RabbitRelayEndToEndTest {

  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(2);
  private static final Backoff QUICK_RETRY =
      Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(500));

  private final String connectionName = "txoutbox-test-e2e-" + UUID.randomUUID();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private TestDatabase db;
  private DSLContext dsl;
  private Outbox outbox;
  private OutboxAdmin admin;
  private TestTopology topology;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create("rabbit_e2e");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
    topology = TestTopology.create("e2e", "order.*");
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    topology.close();
    db.close();
  }

  private RabbitPublisher.Builder publisherBuilder() {
    return RabbitPublisher.builder()
        .connectionFactory(RabbitTestBroker.factory())
        .exchange(topology.exchange())
        .connectionName(connectionName);
  }

  /** Starts a relay on the test's outbox; closed, then the publisher, after the test. */
  private void startRelay(Publisher publisher, RelayConfig config, RelayListener... listeners) {
    resources.add(publisher);
    OutboxRelay.Builder builder =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .config(config);
    for (RelayListener listener : listeners) {
      builder.listener(listener);
    }
    OutboxRelay relay = builder.build();
    resources.add(() -> relay.close(Duration.ofSeconds(10)));
    relay.start();
  }

  /** Writes {@code count} events, {@code perTransaction} to a transaction, one INSERT each. */
  private List<UUID> write(int count, int perTransaction, String eventType) {
    List<UUID> ids = new ArrayList<>(count);
    for (int written = 0; written < count; written += perTransaction) {
      int first = written;
      int size = Math.min(perTransaction, count - written);
      dsl.transaction(
          tx -> {
            for (int i = first; i < first + size; i++) {
              ids.add(
                  outbox.record(
                      tx.dsl(),
                      OutboxEvent.of("order", "o-" + (i % 97), eventType, "{\"i\": " + i + "}")));
            }
          });
    }
    return ids;
  }

  private Set<String> processedIds() {
    return new HashSet<>(
        dsl.resultQuery(
                "select id::text from "
                    + db.schema()
                    + ".outbox_events where processed_at is not null")
            .fetch(0, String.class));
  }

  private static Set<String> strings(List<UUID> ids) {
    Set<String> strings = new HashSet<>();
    ids.forEach(id -> strings.add(id.toString()));
    return strings;
  }

  @Test
  void tenThousandEventsWrittenInTransactionsReachTheConsumerAndAreMarkedProcessed()
      throws Exception {
    startRelay(
        publisherBuilder().build(),
        RelayConfig.builder().name("e2e").batchSize(200).workers(2).build());

    Set<String> written = strings(write(10_000, 50, "order.created"));

    await()
        .atMost(DRAIN_TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).hasSize(10_000));
    await().atMost(DRAIN_TIMEOUT).until(() -> admin.pendingCount() == 0);
    assertThat(topology.receivedIds()).isEqualTo(written);
    assertThat(processedIds()).isEqualTo(written);
    assertThat(admin.deadLetterCount()).isZero();
    Delivery sample = topology.take(1, Duration.ofSeconds(5)).get(0);
    Map<String, String> headers = RabbitPublisherContractTest.received(sample).headers();
    assertThat(headers.get(OutboxHeaders.EVENT_ID)).isIn(written);
    assertThat(headers).containsEntry(OutboxHeaders.EVENT_TYPE, "order.created");
    assertThat(sample.getProperties().getDeliveryMode()).isEqualTo(2);
  }

  @Test
  void unroutableEventsStayPendingAndArriveOnceAQueueIsBound() throws Exception {
    startRelay(
        publisherBuilder().build(),
        RelayConfig.builder()
            .name("e2e-unroutable")
            .maxAttempts(1_000)
            .backoff(QUICK_RETRY)
            .build());
    Set<String> routable = strings(write(50, 25, "order.created"));
    Set<String> unroutable = strings(write(10, 10, "invoice.created"));

    await()
        .atMost(DRAIN_TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).isEqualTo(routable));
    await()
        .atMost(DRAIN_TIMEOUT)
        .until(
            () ->
                dsl.fetchCount(
                        DSL.table(DSL.name(db.schema(), "outbox_events")),
                        DSL.field("event_type").eq("invoice.created"),
                        DSL.field("processed_at").isNull(),
                        DSL.field("attempts", Integer.class).ge(2))
                    == 10);
    assertThat(processedIds()).isEqualTo(routable);
    assertThat(admin.pendingCount()).isEqualTo(10);
    assertThat(admin.deadLetterCount()).isZero();

    topology.bind("invoice.*");

    await().atMost(DRAIN_TIMEOUT).until(() -> admin.pendingCount() == 0);
    Set<String> all = new HashSet<>(routable);
    all.addAll(unroutable);
    await()
        .atMost(DRAIN_TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).isEqualTo(all));
  }

  @Test
  void connectionClosedByTheBrokerMidDrainLosesNothingAndCostsNoAttempt() throws Exception {
    Set<String> written = strings(write(3_000, 500, "order.created"));
    AtomicInteger routed = new AtomicInteger();
    AtomicBoolean cut = new AtomicBoolean();
    CountingPublisher publisher =
        new CountingPublisher(
            publisherBuilder()
                .router(
                    message -> {
                      // In the middle of the drain and of a batch, the broker drops the connection.
                      if (routed.incrementAndGet() == 1_250 && cut.compareAndSet(false, true)) {
                        RabbitTestBroker.closeConnection(connectionName);
                      }
                      return Optional.of(
                          new RabbitRouter.Route(topology.exchange(), message.eventType()));
                    })
                .build());
    startRelay(
        publisher,
        RelayConfig.builder()
            .name("e2e-cut")
            .batchSize(100)
            .workers(2)
            .backoff(QUICK_RETRY)
            .build());

    await().atMost(DRAIN_TIMEOUT).until(() -> admin.pendingCount() == 0);

    assertThat(cut).isTrue();
    // the batches cut off were reported as an unavailable broker, which costs no attempt
    assertThat(publisher.outcomes(Status.BROKER_UNAVAILABLE)).isPositive();
    assertThat(publisher.outcomes(Status.RETRYABLE_FAILURE)).isZero();
    assertThat(
            dsl.fetchCount(
                DSL.table(DSL.name(db.schema(), "outbox_events")),
                DSL.field("attempts", Integer.class).gt(0)))
        .isZero();
    assertThat(admin.deadLetterCount()).isZero();
    assertThat(processedIds()).isEqualTo(written);
    await()
        .atMost(DRAIN_TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).isEqualTo(written));
    assertThat(topology.deliveryCount()).isGreaterThanOrEqualTo(written.size());
  }
}
