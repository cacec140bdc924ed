package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.txoutbox.DeadLetter;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.guice.OutboxModule;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.guice.SqsPublisherModule;
import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/** Writer, relay and SqsPublisher together: PostgreSQL to ElasticMQ, standard and FIFO. */
class SqsRelayEndToEndTest {

  private static final Logger log = LoggerFactory.getLogger(SqsRelayEndToEndTest.class);
  private static final int EVENTS = 10_000;
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(3);

  private static ElasticMq sqs;
  private static TestDatabase db;
  private static DSLContext dsl;

  private OutboxAdmin admin;
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @BeforeAll
  static void start() {
    sqs = ElasticMq.start();
    db = TestDatabase.create("sqs_e2e");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  static void stop() {
    try {
      db.close();
    } finally {
      sqs.close();
    }
  }

  @BeforeEach
  void emptyOutbox() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  @AfterEach
  void closeRelayAndPublisher() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close(); // relay first, then its publisher
    }
  }

  private OutboxRelay startRelay(SqsPublisher publisher, int workers) {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .config(RelayConfig.builder().batchSize(100).workers(workers).maxAttempts(3).build())
            .build();
    closeables.add(relay);
    closeables.add(publisher);
    relay.start();
    return relay;
  }

  /** Writes {@code EVENTS} events over {@code aggregates} aggregates, interleaved; payload n. */
  private static List<UUID> write(Outbox outbox, String type, int aggregates) {
    List<UUID> ids = new ArrayList<>();
    for (int chunk = 0; chunk < EVENTS; chunk += 1_000) {
      List<OutboxEvent> events = new ArrayList<>();
      for (int n = chunk; n < chunk + 1_000; n++) {
        events.add(
            OutboxEvent.of(
                type, "agg-" + (n % aggregates), type + ".happened", "{\"n\":" + n + "}"));
      }
      ids.addAll(dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events)));
    }
    return ids;
  }

  private void awaitDrained(long started, String what) {
    await().atMost(DRAIN_TIMEOUT).until(() -> admin.pendingCount() == 0);
    double seconds = (System.nanoTime() - started) / 1e9;
    log.info(
        "{}: relayed {} events in {} s ({} events/s)", what, EVENTS, seconds, EVENTS / seconds);
  }

  /** One consumer, receiving in the background while the relay publishes. */
  private static CompletableFuture<List<Message>> consume(String queue) {
    return CompletableFuture.supplyAsync(() -> sqs.receive(queue, EVENTS, DRAIN_TIMEOUT));
  }

  private static int n(Message m) {
    return Integer.parseInt(m.body().replaceAll("\\D", ""));
  }

  @Test
  void relaysTenThousandEventsToAStandardQueue() {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    String queue = sqs.createQueue("e2e-standard", false);
    List<UUID> ids = write(outbox, "order", 50);

    CompletableFuture<List<Message>> consumer = consume(queue);
    long started = System.nanoTime();
    startRelay(SqsPublisher.builder().client(sqs.client()).route("order", queue).build(), 2);
    awaitDrained(started, "standard queue, 2 workers");

    Set<String> received = new HashSet<>();
    for (Message m : consumer.join()) {
      received.add(SqsHeaders.read(m.messageAttributes()).get(OutboxHeaders.EVENT_ID));
    }
    assertThat(received).hasSize(EVENTS);
    assertThat(received).containsAll(ids.stream().map(UUID::toString).toList());
    assertThat(admin.deadLetterCount()).isZero();
  }

  @Test
  void relaysTenThousandEventsToAFifoQueueInEachAggregatesOrder() {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    String queue = sqs.createQueue("e2e-fifo", true);
    write(outbox, "order", 100);

    CompletableFuture<List<Message>> consumer = consume(queue);
    long started = System.nanoTime();
    // one worker: the relay hands batches over in seq order, and the publisher keeps each
    // aggregate's order within a batch
    startRelay(SqsPublisher.builder().client(sqs.client()).route("order", queue).build(), 1);
    awaitDrained(started, "FIFO queue, 1 worker");

    Map<String, List<Integer>> byGroup = new HashMap<>();
    List<Message> received = consumer.join();
    for (Message m : received) {
      byGroup
          .computeIfAbsent(
              m.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
              g -> new ArrayList<>())
          .add(n(m));
    }
    assertThat(received).hasSize(EVENTS);
    assertThat(byGroup).hasSize(100);
    byGroup.forEach(
        (group, ns) -> {
          assertThat(ns).as("events of %s", group).hasSize(100).isSorted().doesNotHaveDuplicates();
          assertThat(ns).allMatch(n -> group.equals("agg-" + (n % 100)));
        });
  }

  @Test
  void deadLettersAnOversizedEventWithoutHoldingBackTheOthers() {
    Outbox outbox =
        Outbox.builder()
            .schema(db.schema())
            .maxPayloadBytes(2 * SqsPublisher.SQS_MAX_BYTES)
            .build();
    String queue = sqs.createQueue("e2e-oversized", true);
    List<OutboxEvent> events = new ArrayList<>();
    for (int n = 0; n < 50; n++) {
      events.add(OutboxEvent.of("order", "agg-" + (n % 5), "order.happened", "{\"n\":" + n + "}"));
      if (n == 20) {
        String huge = "{\"blob\":\"" + "x".repeat(SqsPublisher.SQS_MAX_BYTES) + "\"}";
        events.add(OutboxEvent.of("order", "agg-0", "order.huge", huge));
      }
    }
    dsl.transaction(tx -> outbox.recordAll(tx.dsl(), events));

    startRelay(SqsPublisher.builder().client(sqs.client()).route("order", queue).build(), 1);

    await()
        .atMost(Duration.ofMinutes(1))
        .until(() -> admin.pendingCount() == 0 && admin.deadLetterCount() == 1);
    List<DeadLetter> dead = admin.deadLetters(null, 10);
    assertThat(dead)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.eventType()).isEqualTo("order.huge");
              assertThat(d.attempts()).isEqualTo(1);
              assertThat(d.lastError()).contains("over the SQS limit");
            });
    List<Message> received = sqs.receive(queue, 50, Duration.ofSeconds(30));
    assertThat(received)
        .extracting(SqsRelayEndToEndTest::n)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.range(0, 50).boxed().toList());
  }

  @Test
  void relaysThroughTheGuiceModulesAsTheReadmeWiresThem() {
    String queue = sqs.createQueue("e2e-guice", false);
    Injector injector =
        Guice.createInjector(
            OutboxModule.builder().schema(db.schema()).build(),
            SqsPublisherModule.routes(Map.of("order", queue)),
            new AbstractModule() {
              @Override
              protected void configure() {
                bind(SqsAsyncClient.class).toInstance(sqs.client());
                bind(DataSource.class).toInstance(db.dataSource());
              }
            });
    OutboxRelay relay = injector.getInstance(OutboxRelay.class);
    closeables.add(relay);
    closeables.add(injector.getInstance(Publisher.class));
    relay.start();

    Outbox outbox = injector.getInstance(Outbox.class);
    UUID id =
        dsl.transactionResult(tx -> outbox.record(tx.dsl(), "order", "o-1", "order.created", "{}"));

    List<Message> received = sqs.receive(queue, 1, Duration.ofSeconds(30));
    assertThat(received)
        .singleElement()
        .satisfies(
            m ->
                assertThat(SqsHeaders.read(m.messageAttributes()))
                    .containsEntry(OutboxHeaders.EVENT_ID, id.toString()));
  }
}
