package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The relay's per-aggregate ordered mode, and the writer's per-aggregate locks behind it. */
class OrderedRelayTest {

  private TestDatabase db;
  private DSLContext dsl;
  private OutboxAdmin admin;
  private final List<OutboxRelay> relays = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("ordered", 16);
    OutboxSchema.migrateOrderingIndex(db.dataSource(), db.schema());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  @AfterEach
  void tearDown() {
    relays.forEach(r -> r.close(Duration.ofSeconds(5)));
    db.close();
  }

  private OutboxRelay relay(Publisher publisher, RelayConfig config, MutableClock clock) {
    OutboxRelay.Builder b = TestSupport.relayBuilder(db, publisher).config(config);
    if (clock != null) {
      b.clock(clock);
    }
    OutboxRelay relay = b.build();
    relays.add(relay);
    return relay;
  }

  private UUID write(String aggregateId) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    return dsl.transactionResult(
        tx -> outbox.publish(tx.dsl(), "account", aggregateId, "account.changed", "{}"));
  }

  @Test
  void fourRelaysNeverPublishAnEventBeforeTheEarlierOnesOfItsAggregate() {
    Map<String, List<UUID>> written = new HashMap<>();
    List<OutboxEvent> events = new ArrayList<>();
    for (int n = 0; n < 25; n++) {
      for (int a = 0; a < 40; a++) {
        events.add(OutboxEvent.of("account", "a" + a, "account.changed", "{\"n\":" + n + "}"));
      }
    }
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<UUID> ids = dsl.transactionResult(tx -> outbox.publishAll(tx.dsl(), events));
    for (int i = 0; i < ids.size(); i++) {
      written.computeIfAbsent(events.get(i).aggregateId(), k -> new ArrayList<>()).add(ids.get(i));
    }
    Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    Publisher checking =
        messages -> {
          List<PublishResult> results = new ArrayList<>();
          for (OutboxMessage m : messages) {
            List<UUID> sequence = written.get(m.aggregateId());
            for (UUID earlier : sequence.subList(0, sequence.indexOf(m.id()))) {
              if (!acknowledged.contains(earlier)) {
                violations.add(m.id() + " handed over before " + earlier);
              }
            }
            // One attempt in ten fails, so retries have to keep their place too.
            if (ThreadLocalRandom.current().nextInt(10) == 0) {
              results.add(PublishResult.retryable("flaky"));
            } else {
              acknowledged.add(m.id());
              results.add(PublishResult.published());
            }
          }
          return results;
        };
    RelayConfig config =
        RelayConfig.builder()
            .ordering(Ordering.PER_AGGREGATE)
            .workers(2)
            .batchSize(50)
            .minPollInterval(Duration.ofMillis(5))
            .maxPollInterval(Duration.ofMillis(20))
            .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(20)))
            .maxAttempts(100)
            .build();
    for (int i = 0; i < 4; i++) {
      relay(checking, config.toBuilder().name("ordered-" + i).build(), null).start();
    }

    await().atMost(Duration.ofMinutes(2)).until(() -> admin.pendingCount() == 0);

    assertThat(violations).isEmpty();
    assertThat(acknowledged).containsExactlyInAnyOrderElementsOf(ids);
  }

  @Test
  void aFailingEventHoldsBackOnlyItsOwnAggregate() throws Exception {
    MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    UUID x1 = write("x");
    UUID x2 = write("x");
    UUID y1 = write("y");
    ScriptedPublisher publisher =
        new ScriptedPublisher()
            .answer(
                m ->
                    m.id().equals(x1)
                        ? PublishResult.retryable("down")
                        : PublishResult.published());
    OutboxRelay relay =
        relay(publisher, RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build(), clock);

    assertThat(relay.runOnce()).isEqualTo(2); // x1 (fails) and y1; x2 waits for x1
    assertThat(publisher.acknowledgements).containsOnlyKeys(y1);
    clock.advance(Duration.ofMinutes(10));
    publisher.answer(m -> PublishResult.published());
    assertThat(relay.runOnce()).isEqualTo(1); // x1 only: x2 is not the head yet
    assertThat(relay.runOnce()).isEqualTo(1); // now x2
    assertThat(publisher.acknowledged).extracting(OutboxMessage::id).containsExactly(y1, x1, x2);
  }

  @Test
  void aDeadLetterHaltsItsAggregateUntilRequeued() throws Exception {
    UUID first = write("z");
    UUID second = write("z");
    ScriptedPublisher publisher =
        new ScriptedPublisher()
            .answer(
                m ->
                    m.id().equals(first)
                        ? PublishResult.permanent("bad")
                        : PublishResult.published());
    OutboxRelay relay =
        relay(publisher, RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build(), null);

    relay.runOnce();
    assertThat(relay.runOnce()).as("the dead letter halts its aggregate").isZero();
    assertThat(admin.pendingCount()).isEqualTo(1);

    publisher.answer(m -> PublishResult.published());
    admin.requeue(DeadLetterSelector.ids(first));
    relay.runOnce();
    relay.runOnce();
    assertThat(publisher.acknowledged).extracting(OutboxMessage::id).containsExactly(first, second);
  }

  @Test
  void skipPolicyParksADeadLetterAndGoesOn() throws Exception {
    UUID first = write("s");
    UUID second = write("s");
    ScriptedPublisher publisher =
        new ScriptedPublisher()
            .answer(
                m ->
                    m.id().equals(first)
                        ? PublishResult.permanent("bad")
                        : PublishResult.published());
    OutboxRelay relay =
        relay(
            publisher,
            RelayConfig.builder().ordering(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS).build(),
            null);

    relay.runOnce();
    assertThat(relay.runOnce()).isEqualTo(1);
    assertThat(publisher.acknowledged).extracting(OutboxMessage::id).containsExactly(second);
    assertThat(admin.deadLetterCount()).isEqualTo(1);
  }

  @Test
  void lockPerAggregateMakesASecondWriterOfTheAggregateWaitForTheFirst() throws Exception {
    Outbox locking = Outbox.builder().schema(db.schema()).lockPerAggregate(true).build();
    CountDownLatch firstWrote = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CompletableFuture<UUID> first =
        CompletableFuture.supplyAsync(
            () ->
                dsl.transactionResult(
                    tx -> {
                      UUID id = locking.publish(tx.dsl(), "account", "l", "account.changed", "{}");
                      firstWrote.countDown();
                      releaseFirst.await();
                      return id;
                    }));
    assertThat(firstWrote.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<UUID> second =
        CompletableFuture.supplyAsync(
            () ->
                dsl.transactionResult(
                    tx -> locking.publish(tx.dsl(), "account", "l", "account.changed", "{}")));
    // The second writer is waiting on the first one's advisory lock, not merely slow.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                dsl.resultQuery(
                            "select count(*) from pg_locks where locktype = 'advisory' and not granted")
                        .fetchOne(0, Integer.class)
                    == 1);
    assertThat(second).isNotDone();
    // A writer of another aggregate is not held up.
    dsl.transaction(tx -> locking.publish(tx.dsl(), "account", "other", "account.changed", "{}"));

    releaseFirst.countDown();
    UUID a = first.get(30, TimeUnit.SECONDS);
    UUID b = second.get(30, TimeUnit.SECONDS);
    DSLContext mapped = TestSupport.mapped(db);
    long seqA =
        mapped
            .select(OUTBOX_EVENTS.SEQ)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(a))
            .fetchOne(OUTBOX_EVENTS.SEQ);
    long seqB =
        mapped
            .select(OUTBOX_EVENTS.SEQ)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(b))
            .fetchOne(OUTBOX_EVENTS.SEQ);
    assertThat(seqB).isGreaterThan(seqA);
  }
}
