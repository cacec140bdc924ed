package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several ordered relays with several workers each, runs longer than a batch, one attempt in ten
 * failing at random, and one event in the middle of an aggregate's run failing for good: every
 * aggregate is acknowledged in {@code seq} order, and the dead letter halts its aggregate or is
 * skipped, as the ordering says.
 *
 * <p>Which attempts fail follows from a seed, printed, and from each event's sequence and attempt
 * number, not from the order in which the workers reach the broker: {@code
 * -Dtxoutbox.orderedRuns.seed=N} replays the failures of a run (the interleaving of the workers is
 * not replayed).
 */
class OrderedRunsUnderFailuresTest {

  private static final int AGGREGATES = 30;
  private static final int EVENTS_PER_AGGREGATE = 40;
  private static final int BATCH = 15;
  private static final String POISONED = "a-7";
  private static final int POISON_INDEX = 19;
  private static final long SEED = Long.getLong("txoutbox.orderedRuns.seed", System.nanoTime());

  private final OrderedFixture fixture = new OrderedFixture("ordered_load");

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  /**
   * A broker that checks the order against the database: when it is handed an event, every earlier
   * event of the aggregate that is not processed (committed) must be in the same batch, before it,
   * or be a dead letter under the skip policy. An earlier event another relay holds, or one that
   * another relay's broker acknowledged but whose batch has not committed yet, is a violation. It
   * records, per aggregate, the events it acknowledged in the order it did, and keeps the publisher
   * contract: after a failure, the later events of that aggregate in the batch are not sent.
   */
  private static final class CheckingBroker implements Publisher {
    final DSLContext db;
    final Map<String, List<UUID>> acknowledgedInOrder = new ConcurrentHashMap<>();
    final Set<UUID> acknowledged = ConcurrentHashMap.newKeySet();
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final UUID poison;
    final boolean skipsDeadLetters;
    final long seed;
    final AtomicBoolean poisonRefused = new AtomicBoolean(true);
    final AtomicInteger longestRun = new AtomicInteger();
    final AtomicInteger batches = new AtomicInteger();

    /** Holds the first batches until three are in flight at once, all claimed side by side. */
    static final int HELD = 3;

    final CountDownLatch firstBatches = new CountDownLatch(HELD);

    CheckingBroker(DSLContext db, UUID poison, boolean skipsDeadLetters, long seed) {
      this.db = db;
      this.poison = poison;
      this.skipsDeadLetters = skipsDeadLetters;
      this.seed = seed;
    }

    /** One attempt in ten fails, chosen by the seed, the event's sequence and the attempt. */
    boolean flaky(OutboxMessage m) {
      return new SplittableRandom(seed ^ (m.sequence() << 20) ^ m.attempt()).nextInt(10) == 0;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      check(messages);
      if (batches.incrementAndGet() <= HELD) {
        firstBatches.countDown();
        if (!firstBatches.await(30, TimeUnit.SECONDS)) {
          violations.add("three batches were never in flight at once");
        }
      }
      List<PublishResult> results = new ArrayList<>();
      Set<String> failed = new HashSet<>();
      for (OutboxMessage m : messages) {
        if (failed.contains(m.aggregateId())) {
          results.add(
              PublishResult.retryable("not sent: an earlier event of its aggregate failed"));
        } else if (m.id().equals(poison) && poisonRefused.get()) {
          failed.add(m.aggregateId());
          results.add(PublishResult.permanent("refused for good"));
        } else if (flaky(m)) {
          failed.add(m.aggregateId());
          results.add(PublishResult.retryable("flaky"));
        } else {
          if (acknowledged.add(m.id())) {
            acknowledgedInOrder
                .computeIfAbsent(
                    m.aggregateId(), k -> Collections.synchronizedList(new ArrayList<>()))
                .add(m.id());
          }
          results.add(PublishResult.published());
        }
      }
      return results;
    }

    private void check(List<OutboxMessage> messages) {
      Map<String, Integer> runs = new HashMap<>();
      messages.forEach(m -> runs.merge(m.aggregateId(), 1, Integer::sum));
      longestRun.accumulateAndGet(
          runs.values().stream().mapToInt(Integer::intValue).max().orElse(0), Math::max);
      Set<UUID> batch = new HashSet<>();
      messages.forEach(m -> batch.add(m.id()));
      var unprocessed =
          db.select(
                  OUTBOX_EVENTS.ID,
                  OUTBOX_EVENTS.AGGREGATE_ID,
                  OUTBOX_EVENTS.SEQ,
                  OUTBOX_EVENTS.DEAD_LETTERED_AT)
              .from(OUTBOX_EVENTS)
              .where(OUTBOX_EVENTS.AGGREGATE_ID.in(runs.keySet()))
              .and(OUTBOX_EVENTS.PROCESSED_AT.isNull())
              .fetch();
      Set<UUID> before = new HashSet<>();
      for (OutboxMessage m : messages) {
        for (var row : unprocessed) {
          boolean earlier = row.value2().equals(m.aggregateId()) && row.value3() < m.sequence();
          boolean parked = skipsDeadLetters && row.value4() != null;
          if (earlier && !before.contains(row.value1()) && !parked) {
            violations.add(m.aggregateId() + ": " + m.id() + " handed over before " + row.value1());
          }
        }
        before.add(m.id());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void threeRelaysOfTwoWorkersKeepEveryAggregateInOrder(Ordering ordering) {
    Map<String, List<UUID>> written = writeInterleaved();
    UUID poison = written.get(POISONED).get(POISON_INDEX);
    boolean skip = ordering == Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS;
    System.out.printf(
        "%s: seed %d (replay the broker's failures with -Dtxoutbox.orderedRuns.seed=%d)%n",
        ordering, SEED, SEED);
    CheckingBroker broker = new CheckingBroker(TestSupport.mapped(fixture.db), poison, skip, SEED);
    RelayConfig config =
        RelayConfig.builder()
            .ordering(ordering)
            .workers(2)
            .batchSize(BATCH)
            .minPollInterval(Duration.ofMillis(5))
            .maxPollInterval(Duration.ofMillis(20))
            .backoff(Backoff.exponential(Duration.ofMillis(5), Duration.ofMillis(20)))
            .maxAttempts(1_000)
            .build();
    for (int i = 0; i < 3; i++) {
      fixture.relay(broker, config.toBuilder().name("ordered-" + i).build(), null).start();
    }
    int total = AGGREGATES * EVENTS_PER_AGGREGATE;
    List<UUID> poisoned = written.get(POISONED);

    if (skip) {
      await().atMost(Duration.ofMinutes(3)).until(() -> fixture.admin.pendingCount() == 0);
      assertThat(fixture.admin.deadLetterCount()).isEqualTo(1);
      assertThat(broker.acknowledged).hasSize(total - 1).doesNotContain(poison);
      List<UUID> expected = new ArrayList<>(poisoned);
      expected.remove(poison);
      assertThat(broker.acknowledgedInOrder.get(POISONED)).containsExactlyElementsOf(expected);
    } else {
      int halted = EVENTS_PER_AGGREGATE - POISON_INDEX - 1;
      await()
          .atMost(Duration.ofMinutes(3))
          .until(() -> broker.acknowledged.size() >= total - halted - 1);
      // The broker acknowledges an event before the relay's transaction marks it processed: the
      // batches in flight when the last acknowledgement arrives (the dead letter's among them,
      // perhaps) are still pending until they commit. Once they have, exactly the events after
      // the dead letter are pending, and nothing more is acknowledged.
      long inFlight = fixture.admin.pendingCount() - halted;
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                assertThat(fixture.admin.deadLetterCount()).isEqualTo(1);
                assertThat(fixture.admin.pendingCount()).isEqualTo(halted);
              });
      System.out.printf(
          "%s: %d acknowledged events were still pending, their batches in flight, when the last"
              + " acknowledgement arrived%n",
          ordering, inFlight);
      assertThat(pendingIds())
          .as("the events after the dead letter are pending")
          .containsExactlyInAnyOrderElementsOf(
              poisoned.subList(POISON_INDEX + 1, EVENTS_PER_AGGREGATE));
      assertThat(broker.acknowledged).hasSize(total - halted - 1).doesNotContain(poison);
      assertThat(broker.acknowledgedInOrder.get(POISONED))
          .as("the dead letter halts its aggregate")
          .containsExactlyElementsOf(poisoned.subList(0, POISON_INDEX));

      broker.poisonRefused.set(false);
      fixture.admin.requeue(DeadLetterSelector.ids(poison));
      await().atMost(Duration.ofMinutes(1)).until(() -> fixture.admin.pendingCount() == 0);
      assertThat(broker.acknowledgedInOrder.get(POISONED)).containsExactlyElementsOf(poisoned);
    }
    System.out.printf(
        "%s: %d batches, longest run of one aggregate in a batch %d%n",
        ordering, broker.batches.get(), broker.longestRun.get());
    assertThat(broker.longestRun).as("runs fill whole batches").hasValue(BATCH);
    assertThat(broker.violations).isEmpty();
    for (int a = 0; a < AGGREGATES; a++) {
      String aggregate = "a-" + a;
      if (!aggregate.equals(POISONED)) {
        assertThat(broker.acknowledgedInOrder.get(aggregate))
            .as(aggregate)
            .containsExactlyElementsOf(written.get(aggregate));
      }
    }
    assertThat(
            TestSupport.mapped(fixture.db)
                .fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNotNull()))
        .isEqualTo(skip ? total - 1 : total);
  }

  private List<UUID> pendingIds() {
    return TestSupport.mapped(fixture.db)
        .select(OUTBOX_EVENTS.ID)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.PROCESSED_AT.isNull())
        .and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull())
        .fetch(OUTBOX_EVENTS.ID);
  }

  /** Writes the events in transactions of ten, aggregates interleaved. */
  private Map<String, List<UUID>> writeInterleaved() {
    Outbox outbox = Outbox.builder().schema(fixture.db.schema()).build();
    Map<String, List<UUID>> written = new HashMap<>();
    List<OutboxEvent> events = new ArrayList<>();
    List<String> aggregates = new ArrayList<>();
    for (int n = 0; n < EVENTS_PER_AGGREGATE; n++) {
      for (int a = 0; a < AGGREGATES; a++) {
        events.add(OutboxEvent.of("account", "a-" + a, "account.changed", "{\"n\":" + n + "}"));
        aggregates.add("a-" + a);
      }
    }
    for (int from = 0; from < events.size(); from += 10) {
      List<OutboxEvent> chunk = events.subList(from, from + 10);
      List<UUID> ids = fixture.dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), chunk));
      for (int i = 0; i < ids.size(); i++) {
        written.computeIfAbsent(aggregates.get(from + i), k -> new ArrayList<>()).add(ids.get(i));
      }
    }
    return written;
  }
}
