package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's per-aggregate ordered mode: runs, failures within runs, the index it needs, and the
 * writer's per-aggregate locks behind it.
 */
class OrderedRelayTest {

  private OrderedFixture fixture;
  private TestDatabase db;
  private DSLContext dsl;
  private OutboxAdmin admin;

  @BeforeEach
  void setUp() {
    fixture = new OrderedFixture("ordered");
    db = fixture.db;
    dsl = fixture.dsl;
    admin = fixture.admin;
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private OutboxRelay relay(Publisher publisher, RelayConfig config, TestClock clock) {
    return fixture.relay(publisher, config, clock);
  }

  private List<UUID> writeAll(List<OutboxEvent> events) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private OutboxRelay orderedRelay(Publisher publisher, int batchSize) {
    return relay(
        publisher,
        RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).batchSize(batchSize).build(),
        null);
  }

  private UUID write(String aggregateId) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    return dsl.transactionResult(
        tx -> outbox.record(tx.dsl(), "account", aggregateId, "account.changed", "{}"));
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
    List<UUID> ids = dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
    for (int i = 0; i < ids.size(); i++) {
      written.computeIfAbsent(events.get(i).aggregateId(), k -> new ArrayList<>()).add(ids.get(i));
    }
    Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    List<String> violations = Collections.synchronizedList(new ArrayList<>());
    Publisher checking =
        messages -> {
          List<PublishResult> results = new ArrayList<>();
          Set<String> failed = new HashSet<>();
          Set<UUID> inBatch = new HashSet<>();
          for (OutboxMessage m : messages) {
            // Every earlier event of the aggregate was acknowledged, or comes earlier in this
            // batch.
            List<UUID> sequence = written.get(m.aggregateId());
            for (UUID earlier : sequence.subList(0, sequence.indexOf(m.id()))) {
              if (!acknowledged.contains(earlier) && !inBatch.contains(earlier)) {
                violations.add(m.id() + " handed over before " + earlier);
              }
            }
            inBatch.add(m.id());
            if (failed.contains(m.aggregateId())) {
              results.add(PublishResult.retryable("not sent after a failure of its aggregate"));
            } else if (ThreadLocalRandom.current().nextInt(10) == 0) {
              // One attempt in ten fails, so retries have to keep their place too.
              failed.add(m.aggregateId());
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
    TestClock clock = TestClock.at(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    UUID x1 = write("x");
    UUID x2 = write("x");
    UUID y1 = write("y");
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(x1)
                        ? PublishResult.retryable("down")
                        : PublishResult.published());
    OutboxRelay relay =
        relay(publisher, RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build(), clock);

    // The run x1, x2 and y1; x1 fails, so x2 is not attempted.
    assertThat(relay.runOnce()).isEqualTo(3);
    assertThat(publisher.publishCounts()).containsOnlyKeys(y1);
    assertThat(attempts(x2)).isZero();
    assertThat(relay.runOnce()).as("x1 is in backoff and holds back x2").isZero();
    clock.advance(Duration.ofMinutes(10));
    publisher.answer(m -> PublishResult.published());
    assertThat(relay.runOnce()).isEqualTo(2); // the run x1, x2
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactly(y1, x1, x2);
  }

  @Test
  void aDeadLetterHaltsItsAggregateUntilRequeued() throws Exception {
    UUID first = write("z");
    UUID second = write("z");
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(first)
                        ? PublishResult.permanent("bad")
                        : PublishResult.published());
    OutboxRelay relay =
        relay(publisher, RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build(), null);

    assertThat(relay.runOnce()).isEqualTo(2); // the run: first fails for good, second waits
    assertThat(relay.runOnce()).as("the dead letter halts its aggregate").isZero();
    assertThat(admin.pendingCount()).isEqualTo(1);

    publisher.answer(m -> PublishResult.published());
    admin.requeue(DeadLetterSelector.ids(first));
    assertThat(relay.runOnce()).isEqualTo(2);
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactly(first, second);
  }

  @Test
  void skipPolicyParksADeadLetterAndGoesOn() throws Exception {
    UUID first = write("s");
    UUID second = write("s");
    RecordingPublisher publisher =
        new RecordingPublisher()
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

    assertThat(relay.runOnce()).isEqualTo(2); // first becomes a dead letter, second waits
    assertThat(relay.runOnce()).isEqualTo(1);
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactly(second);
    assertThat(admin.deadLetterCount()).isEqualTo(1);
  }

  @Test
  void aBatchCarriesRunsOfConsecutiveEventsOfEachAggregateInSeqOrder() throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (int n = 0; n < 30; n++) {
      events.add(OutboxEvent.of("account", "hot", "account.changed", "{\"n\":" + n + "}"));
      if (n % 10 == 0) {
        events.add(OutboxEvent.of("account", "cold-" + n, "account.changed", "{}"));
      }
    }
    List<UUID> ids = writeAll(events);
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay = orderedRelay(publisher, 100);

    assertThat(relay.runOnce()).isEqualTo(33);
    assertThat(publisher.batches()).isEqualTo(1);
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactlyElementsOf(ids);
  }

  @Test
  void aRunLongerThanTheBatchDrainsOverSeveralCyclesInOrder() throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (int n = 0; n < 25; n++) {
      events.add(OutboxEvent.of("account", "long", "account.changed", "{\"n\":" + n + "}"));
    }
    List<UUID> ids = writeAll(events);
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay = orderedRelay(publisher, 10);

    assertThat(relay.runOnce()).isEqualTo(10);
    assertThat(relay.runOnce()).isEqualTo(10);
    assertThat(relay.runOnce()).isEqualTo(5);
    assertThat(relay.runOnce()).isZero();
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactlyElementsOf(ids);
  }

  @Test
  void aRunEndsAtItsFirstEventThatIsNotDue() throws Exception {
    Instant start = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    TestClock clock = TestClock.at(start);
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<UUID> ids =
        dsl.transactionResult(
            tx ->
                outbox.recordAll(
                    tx.dsl(),
                    List.of(
                        OutboxEvent.of("account", "d", "account.changed", "{}"),
                        OutboxEvent.builder("account", "d", "account.changed")
                            .payload("{}")
                            .notBefore(start.plus(Duration.ofMinutes(5)))
                            .build(),
                        OutboxEvent.of("account", "d", "account.changed", "{}"))));
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        relay(publisher, RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build(), clock);

    assertThat(relay.runOnce()).as("the delayed event ends the run").isEqualTo(1);
    assertThat(relay.runOnce()).as("and now holds back its aggregate").isZero();
    clock.advance(Duration.ofMinutes(6));
    assertThat(relay.runOnce()).isEqualTo(2);
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactlyElementsOf(ids);
  }

  @Test
  void anUnreadableEventDeadLettersAndHoldsBackTheRestOfItsRun() throws Exception {
    // Headers that are not an object of strings: the relay cannot read the row.
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, headers)"
            + " VALUES (gen_random_uuid(), 'account', 'u', 'account.changed', '{}', '[]')");
    UUID second = write("u");
    UUID other = write("v");
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay halting = orderedRelay(publisher, 100);

    assertThat(halting.runOnce()).as("the unreadable one and the other aggregate's").isEqualTo(2);
    assertThat(admin.deadLetterCount()).isEqualTo(1);
    assertThat(attempts(second)).as("not attempted").isZero();
    assertThat(halting.runOnce()).as("the dead letter halts its aggregate").isZero();
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactly(other);

    OutboxRelay skipping =
        relay(
            publisher,
            RelayConfig.builder().ordering(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS).build(),
            null);
    assertThat(skipping.runOnce()).isEqualTo(1);
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactly(other, second);
  }

  @Test
  void refusesToStartWithoutTheOrderingIndexAndSaysHowToInstallIt() {
    try (TestDatabase bare = TestDatabase.create("ordered_bare", 2)) {
      for (Ordering ordering :
          List.of(Ordering.PER_AGGREGATE, Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS)) {
        OutboxRelay relay =
            TestSupport.relayBuilder(bare, new RecordingPublisher())
                .config(RelayConfig.builder().ordering(ordering).build())
                .build();
        assertThatThrownBy(relay::start)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining(OutboxSchema.ORDERING_INDEX)
            .hasMessageContaining(
                "OutboxSchema.migrateOrderingIndex(dataSource, \"" + bare.schema() + "\")")
            .hasMessageContaining(
                "txoutbox migrate --schema " + bare.schema() + " --with-ordering-index");
        assertThat(relay.isRunning()).isFalse();
      }
      OutboxSchema.migrateOrderingIndex(bare.dataSource(), bare.schema());
      OutboxRelay relay =
          TestSupport.relayBuilder(bare, new RecordingPublisher())
              .config(RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build())
              .build();
      relay.start();
      assertThat(relay.isRunning()).isTrue();
      relay.close(Duration.ofSeconds(5));
    }
  }

  @Test
  void refusesToStartWithTheFirstVersionOfTheIndexOnly() {
    try (TestDatabase old = TestDatabase.create("ordered_v1", 2)) {
      // The index version 1 installed; an ordered relay needs version 2's.
      old.execute(
          "CREATE INDEX outbox_events_aggregate_pending_idx ON "
              + old.schema()
              + ".outbox_events (aggregate_type, aggregate_id, seq) WHERE processed_at IS NULL");
      OutboxRelay relay =
          TestSupport.relayBuilder(old, new RecordingPublisher())
              .config(RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build())
              .build();
      assertThatThrownBy(relay::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(OutboxSchema.ORDERING_INDEX)
          .hasMessageContaining(OutboxSchema.ORDERING_DEAD_LETTER_INDEX);
    }
  }

  private int attempts(UUID id) {
    return fixture.attempts(id);
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
                      UUID id = locking.record(tx.dsl(), "account", "l", "account.changed", "{}");
                      firstWrote.countDown();
                      releaseFirst.await();
                      return id;
                    }));
    assertThat(firstWrote.await(30, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<UUID> second =
        CompletableFuture.supplyAsync(
            () ->
                dsl.transactionResult(
                    tx -> locking.record(tx.dsl(), "account", "l", "account.changed", "{}")));
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
    dsl.transaction(tx -> locking.record(tx.dsl(), "account", "other", "account.changed", "{}"));

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
