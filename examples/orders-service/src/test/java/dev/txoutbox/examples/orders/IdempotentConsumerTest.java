package dev.txoutbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.examples.orders.IdempotentConsumer.Outcome;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class IdempotentConsumerTest {

  private static TestDatabase db;
  private static DSLContext dsl;

  private IdempotentConsumer consumer;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("idempotent_consumer");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    db.execute("CREATE TABLE " + db.schema() + ".effects (event_id uuid NOT NULL)");
  }

  @AfterAll
  static void dropDatabase() {
    db.close();
  }

  @BeforeEach
  void emptyTables() {
    db.execute("TRUNCATE " + db.schema() + ".effects, " + db.schema() + ".processed_events");
    consumer = new IdempotentConsumer(dsl, db.schema(), "shipping");
  }

  @Test
  void firstDeliveryRunsTheWorkAndLaterDeliveriesAreDuplicates() {
    UUID event = UUID.randomUUID();

    assertThat(consumer.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.PROCESSED);
    assertThat(consumer.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.DUPLICATE);
    assertThat(consumer.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.DUPLICATE);

    assertThat(effects(event)).isEqualTo(1);
    assertThat(marks("shipping", event)).isEqualTo(1);
  }

  @Test
  void workThatThrowsLeavesTheEventUnmarkedSoTheNextDeliveryRunsIt() {
    UUID event = UUID.randomUUID();

    assertThatThrownBy(
            () ->
                consumer.process(
                    event,
                    tx -> {
                      recordEffect(tx, event);
                      throw new IllegalStateException("downstream unavailable");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("downstream unavailable");
    assertThat(effects(event)).isZero();
    assertThat(marks("shipping", event)).isZero();

    assertThat(consumer.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.PROCESSED);
    assertThat(effects(event)).isEqualTo(1);
  }

  @Test
  void eachConsumerNameDeduplicatesOnItsOwn() {
    UUID event = UUID.randomUUID();
    IdempotentConsumer billing = new IdempotentConsumer(dsl, db.schema(), "billing");

    assertThat(consumer.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.PROCESSED);
    assertThat(billing.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.PROCESSED);
    assertThat(billing.process(event, tx -> recordEffect(tx, event))).isEqualTo(Outcome.DUPLICATE);

    assertThat(marks("shipping", event)).isEqualTo(1);
    assertThat(marks("billing", event)).isEqualTo(1);
    assertThat(effects(event)).isEqualTo(2);
  }

  @Test
  void concurrentDeliveriesOfOneEventRunTheWorkOnce() throws Exception {
    UUID event = UUID.randomUUID();
    int deliveries = 4;
    CountDownLatch ready = new CountDownLatch(deliveries);
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger ran = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(deliveries);
    try {
      Future<?>[] results = new Future<?>[deliveries];
      for (int i = 0; i < deliveries; i++) {
        results[i] =
            threads.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return consumer.process(
                      event,
                      tx -> {
                        recordEffect(tx, event);
                        ran.incrementAndGet();
                      });
                });
      }
      assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      int processed = 0;
      for (Future<?> result : results) {
        if (result.get(30, TimeUnit.SECONDS) == Outcome.PROCESSED) {
          processed++;
        }
      }
      assertThat(processed).isEqualTo(1);
    } finally {
      threads.shutdownNow();
    }
    assertThat(ran).hasValue(1);
    assertThat(effects(event)).isEqualTo(1);
  }

  @Test
  void joinsTheCallersTransactionAndRollsBackWithIt() {
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();

    dsl.transaction(
        configuration -> {
          DSLContext tx = configuration.dsl();
          assertThat(consumer.process(tx, first, t -> recordEffect(t, first)))
              .isEqualTo(Outcome.PROCESSED);
          assertThat(consumer.process(tx, first, t -> recordEffect(t, first)))
              .isEqualTo(Outcome.DUPLICATE);
          assertThat(consumer.process(tx, second, t -> recordEffect(t, second)))
              .isEqualTo(Outcome.PROCESSED);
        });
    assertThat(effects(first)).isEqualTo(1);
    assertThat(effects(second)).isEqualTo(1);

    UUID third = UUID.randomUUID();
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    configuration -> {
                      consumer.process(configuration.dsl(), third, t -> recordEffect(t, third));
                      throw new IllegalStateException("the poll's transaction fails");
                    }))
        .hasMessageContaining("the poll's transaction fails");
    assertThat(marks("shipping", third)).isZero();
    assertThat(consumer.process(third, t -> recordEffect(t, third))).isEqualTo(Outcome.PROCESSED);
  }

  @Test
  void refusesACallerConnectionInAutoCommitMode() throws Exception {
    try (Connection connection = db.dataSource().getConnection()) {
      connection.setAutoCommit(true);
      DSLContext autoCommit = DSL.using(connection, SQLDialect.POSTGRES);
      assertThatThrownBy(() -> consumer.process(autoCommit, UUID.randomUUID(), tx -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }
  }

  @Test
  void readsTheEventIdFromThePublishersHeader() {
    UUID event = UUID.randomUUID();
    ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("order", 0, 7, "key", new byte[0]);
    record.headers().add(OutboxHeaders.EVENT_ID, event.toString().getBytes(StandardCharsets.UTF_8));

    assertThat(IdempotentConsumer.eventId(record)).isEqualTo(event);
  }

  @Test
  void rejectsARecordWithoutAUsableEventId() {
    ConsumerRecord<String, byte[]> missing = new ConsumerRecord<>("order", 1, 9, "k", new byte[0]);
    assertThatThrownBy(() -> IdempotentConsumer.eventId(missing))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("order-1@9")
        .hasMessageContaining(OutboxHeaders.EVENT_ID);

    ConsumerRecord<String, byte[]> garbled = new ConsumerRecord<>("order", 1, 10, "k", new byte[0]);
    garbled.headers().add(OutboxHeaders.EVENT_ID, "not-a-uuid".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> IdempotentConsumer.eventId(garbled))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not-a-uuid");
  }

  @Test
  void rejectsInvalidNames() {
    assertThatThrownBy(() -> new IdempotentConsumer(dsl, db.schema(), " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("consumer");
    assertThatThrownBy(() -> new IdempotentConsumer(dsl, db.schema(), "x".repeat(256)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("consumer");
    assertThatThrownBy(() -> new IdempotentConsumer(dsl, "Bad-Schema", "shipping"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema");
    assertThatThrownBy(() -> new IdempotentConsumer(dsl, db.schema(), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("consumer");
  }

  private static void recordEffect(DSLContext tx, UUID event) {
    tx.execute("INSERT INTO " + DSL.name(db.schema(), "effects") + " (event_id) VALUES (?)", event);
  }

  private static int effects(UUID event) {
    return dsl.fetchCount(
        DSL.table(DSL.name(db.schema(), "effects")), DSL.field(DSL.name("event_id")).eq(event));
  }

  private static int marks(String consumerName, UUID event) {
    return dsl.fetchCount(
        DSL.table(DSL.name(db.schema(), "processed_events")),
        DSL.field(DSL.name("consumer")).eq(consumerName),
        DSL.field(DSL.name("event_id")).eq(event));
  }
}
