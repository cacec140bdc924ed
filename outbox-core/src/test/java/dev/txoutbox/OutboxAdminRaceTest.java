package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.internal.OutboxConditions;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Admin changes racing each other and a live relay. Each change re-checks its predicate in the
 * statement that changes the row, so a row that stopped matching (requeued, purged, no longer
 * processed) is never touched. The deterministic tests hold one transaction open until the other
 * statement is seen waiting on its row lock in {@code pg_stat_activity}, then commit it.
 */
class OutboxAdminRaceTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  private static TestDatabase db;
  private static DSLContext dsl;
  private static DSLContext mapped;
  private Outbox outbox;
  private OutboxAdmin admin;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("admin_race", 16);
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  // ---- deterministic reproductions ----

  @Test
  void aPurgeRacingARequeueNeverDeletesTheJustRequeuedEvent() throws Exception {
    UUID event = deadLetters(1, "order.paid").get(0);
    HeldTransaction<Long> requeue =
        HeldTransaction.open(dsl, tx -> adminIn(tx).requeue(DeadLetterSelector.ids(event)));
    assertThat(requeue.value()).isEqualTo(1);

    // The purge still sees a dead letter (the requeue has not committed) and waits on its lock.
    CompletableFuture<Long> purge = async(() -> admin.purge(DeadLetterSelector.all()));
    awaitOneStatementWaitingForALock();
    requeue.commit();

    assertThat(purge.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OutboxConditions.PENDING)).isEqualTo(1);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ID.eq(event))).isEqualTo(1);
  }

  @Test
  void aPurgeByTypeRacingARequeueDeletesOnlyWhatIsStillADeadLetter() throws Exception {
    List<UUID> events = deadLetters(4, "order.paid");
    HeldTransaction<Long> requeue =
        HeldTransaction.open(
            dsl, tx -> adminIn(tx).requeue(DeadLetterSelector.ids(events.get(0), events.get(1))));

    CompletableFuture<Long> purge =
        async(() -> admin.purge(DeadLetterSelector.eventType("order.paid")));
    awaitOneStatementWaitingForALock();
    requeue.commit();

    assertThat(purge.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(mapped.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
        .containsExactlyInAnyOrder(events.get(0), events.get(1));
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OutboxConditions.PENDING)).isEqualTo(2);
  }

  @Test
  void twoRequeuesRacingCountEachDeadLetterOnce() throws Exception {
    List<UUID> events = deadLetters(3, "order.paid");
    HeldTransaction<Long> first =
        HeldTransaction.open(dsl, tx -> adminIn(tx).requeue(DeadLetterSelector.all()));

    CompletableFuture<Long> second = async(() -> admin.requeue(DeadLetterSelector.all()));
    awaitOneStatementWaitingForALock();
    first.commit();

    assertThat(first.value()).isEqualTo(3);
    assertThat(second.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OutboxConditions.PENDING)).isEqualTo(events.size());
  }

  @Test
  void aRequeueRacingAPurgeRequeuesNothingThatWasDeleted() throws Exception {
    deadLetters(2, "order.paid");
    HeldTransaction<Long> purge =
        HeldTransaction.open(dsl, tx -> adminIn(tx).purge(DeadLetterSelector.all()));

    CompletableFuture<Long> requeue = async(() -> admin.requeue(DeadLetterSelector.all()));
    awaitOneStatementWaitingForALock();
    purge.commit();

    assertThat(purge.value()).isEqualTo(2);
    assertThat(requeue.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
    assertThat(mapped.fetchCount(OUTBOX_EVENTS)).isZero();
  }

  @Test
  void cleanupNeverDeletesARowThatIsNoLongerProcessed() throws Exception {
    List<UUID> old = write(3, "order.created");
    markProcessed(old, OffsetDateTime.now().minusDays(30));
    // Someone makes one old event pending again (a replay by hand) while the cleanup runs.
    HeldTransaction<Integer> replay =
        HeldTransaction.open(
            dsl,
            tx ->
                DSL.using(tx.configuration().derive(mapped.settings()))
                    .update(OUTBOX_EVENTS)
                    .setNull(OUTBOX_EVENTS.PROCESSED_AT)
                    .where(OUTBOX_EVENTS.ID.eq(old.get(0)))
                    .execute());

    CompletableFuture<Long> cleanup = async(() -> admin.cleanupProcessed(Duration.ofDays(7)));
    awaitOneStatementWaitingForALock();
    replay.commit();

    assertThat(cleanup.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(2);
    assertThat(mapped.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
        .containsExactly(old.get(0));
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OutboxConditions.PENDING)).isEqualTo(1);
  }

  @Test
  void aRequeueOfMoreThanOneChunkFinishesEvenWhenRowsOfAChunkStopMatching() throws Exception {
    int total = OutboxAdmin.DEFAULT_CHUNK_SIZE + 10;
    List<UUID> events = deadLetters(total, "order.paid");
    // Purge a few of the first chunk while the requeue is about to reach them.
    List<UUID> purged = events.subList(0, 5);
    HeldTransaction<Long> purge =
        HeldTransaction.open(
            dsl, tx -> adminIn(tx).purge(DeadLetterSelector.ids(new HashSet<>(purged))));

    CompletableFuture<Long> requeue = async(() -> admin.requeue(DeadLetterSelector.all()));
    awaitOneStatementWaitingForALock();
    purge.commit();

    assertThat(requeue.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(total - 5);
    assertThat(admin.deadLetterCount()).isZero();
    assertThat(admin.pendingCount()).isEqualTo(total - 5);
  }

  // ---- each pair run concurrently, with and without a live relay ----

  @RepeatedTest(3)
  void purgeAndRequeueOfTheSameDeadLettersAtOnceNeverLoseARequeuedEvent() throws Exception {
    deadLetters(2_000, "order.paid");
    CyclicBarrier start = new CyclicBarrier(2);

    CompletableFuture<Long> requeue =
        async(() -> awaitThen(start, () -> admin.requeue(DeadLetterSelector.all())));
    CompletableFuture<Long> purge =
        async(() -> awaitThen(start, () -> admin.purge(DeadLetterSelector.all())));
    long requeued = requeue.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    long purgedCount = purge.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    System.out.printf("purge vs requeue of 2000: requeued %d, purged %d%n", requeued, purgedCount);
    assertThat(requeued + purgedCount).isEqualTo(2_000);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS)).isEqualTo(requeued);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OutboxConditions.PENDING)).isEqualTo(requeued);
  }

  @Test
  void cleanupAndRequeueAtOnceTouchOnlyTheirOwnRows() throws Exception {
    List<UUID> old = write(1_000, "order.created");
    markProcessed(old, OffsetDateTime.now().minusDays(30));
    List<UUID> dead = deadLetters(1_000, "order.paid");
    CyclicBarrier start = new CyclicBarrier(2);

    CompletableFuture<Long> cleanup =
        async(
            () -> awaitThen(start, () -> admin.cleanupProcessed(Duration.ofDays(7), 50, n -> {})));
    CompletableFuture<Long> requeue =
        async(() -> awaitThen(start, () -> admin.requeue(DeadLetterSelector.all())));

    assertThat(cleanup.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1_000);
    assertThat(requeue.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1_000);
    assertThat(mapped.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
        .containsExactlyInAnyOrderElementsOf(dead);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OutboxConditions.PENDING)).isEqualTo(1_000);
  }

  @Test
  void requeueWhileARelayRunsPublishesEveryRequeuedEventExactlyOnce() throws Exception {
    List<UUID> dead = deadLetters(1_000, "order.paid");
    RecordingPublisher publisher = new RecordingPublisher();
    try (OutboxRelay relay = liveRelay(publisher)) {
      relay.start();
      List<UUID> fresh = new ArrayList<>();
      CompletableFuture<Long> requeue = async(() -> admin.requeue(DeadLetterSelector.all()));
      for (int i = 0; i < 10; i++) {
        fresh.addAll(write(100, "order.created"));
      }

      assertThat(requeue.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(1_000);
      await().atMost(WAIT).until(() -> admin.pendingCount() == 0);

      Set<UUID> all = new HashSet<>(dead);
      all.addAll(fresh);
      assertThat(publisher.publishCounts()).containsOnlyKeys(all);
      assertThat(publisher.publishCounts().values()).allMatch(n -> n == 1);
      assertThat(admin.deadLetterCount()).isZero();
      assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNotNull()))
          .isEqualTo(2_000);
    }
  }

  @Test
  void purgeWhileARelayRunsDeletesOnlyDeadLettersAndEveryHealthyEventIsPublished()
      throws Exception {
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.eventType().equals("order.doomed")
                        ? PublishResult.permanent("rejected")
                        : PublishResult.published());
    List<UUID> healthy = new ArrayList<>();
    List<UUID> doomed = new ArrayList<>();
    long purged = 0;
    try (OutboxRelay relay = liveRelay(publisher)) {
      relay.start();
      for (int i = 0; i < 10; i++) {
        healthy.addAll(write(50, "order.created"));
        doomed.addAll(write(50, "order.doomed"));
        purged += admin.purge(DeadLetterSelector.all());
      }
      await().atMost(WAIT).until(() -> admin.pendingCount() == 0);
      purged += admin.purge(DeadLetterSelector.all());
    }

    assertThat(purged).isEqualTo(doomed.size());
    assertThat(publisher.publishCounts()).containsOnlyKeys(healthy);
    assertThat(publisher.publishCounts().values()).allMatch(n -> n == 1);
    assertThat(mapped.select(OUTBOX_EVENTS.ID).from(OUTBOX_EVENTS).fetch(OUTBOX_EVENTS.ID))
        .containsExactlyInAnyOrderElementsOf(healthy);
  }

  @Test
  void cleanupWhileARelayRunsNeverDeletesAnEventBeforeItIsPublished() throws Exception {
    RecordingPublisher publisher = new RecordingPublisher();
    List<UUID> written = new ArrayList<>();
    long deleted = 0;
    try (OutboxRelay relay = liveRelay(publisher)) {
      relay.start();
      for (int i = 0; i < 20; i++) {
        written.addAll(write(50, "order.created"));
        // Everything processed before now: the cleanup runs right behind the relay.
        deleted += admin.cleanupProcessed(Duration.ZERO, 20, n -> {});
      }
      await().atMost(WAIT).until(() -> admin.pendingCount() == 0);
    }
    deleted += admin.cleanupProcessed(Duration.ZERO, 20, n -> {});

    assertThat(publisher.publishCounts()).containsOnlyKeys(written);
    assertThat(publisher.publishCounts().values()).allMatch(n -> n == 1);
    assertThat(deleted).isEqualTo(written.size());
    assertThat(mapped.fetchCount(OUTBOX_EVENTS)).isZero();
  }

  // ---- helpers ----

  private OutboxAdmin adminIn(DSLContext tx) {
    return OutboxAdmin.create(tx, db.schema());
  }

  private OutboxRelay liveRelay(RecordingPublisher publisher) {
    return TestSupport.relayBuilder(db, publisher)
        .config(
            RelayConfig.builder()
                .batchSize(100)
                .workers(2)
                .maxAttempts(1)
                .minPollInterval(Duration.ofMillis(5))
                .maxPollInterval(Duration.ofMillis(50))
                .build())
        .build();
  }

  private List<UUID> write(int count, String eventType) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, eventType, "{}"));
    }
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  /** Writes {@code count} events and makes them dead letters, as the relay would. */
  private List<UUID> deadLetters(int count, String eventType) {
    List<UUID> ids = write(count, eventType);
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, OffsetDateTime.now())
        .set(OUTBOX_EVENTS.ATTEMPTS, 3)
        .set(OUTBOX_EVENTS.LAST_ERROR, "rejected")
        .where(OUTBOX_EVENTS.ID.in(ids))
        .execute();
    return ids;
  }

  private void markProcessed(List<UUID> ids, OffsetDateTime at) {
    mapped
        .update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.PROCESSED_AT, at)
        .where(OUTBOX_EVENTS.ID.in(ids))
        .execute();
  }

  /** Waits until one statement on this test's schema waits for a row lock. */
  private void awaitOneStatementWaitingForALock() {
    await()
        .atMost(WAIT)
        .until(
            () ->
                dsl.fetchValue(
                        "select count(*) from pg_stat_activity"
                            + " where wait_event_type = 'Lock' and query like ?",
                        "%" + db.schema() + "%")
                    .equals(1L));
  }

  private static <T> CompletableFuture<T> async(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, HeldTransaction.THREADS);
  }

  private static <T> T awaitThen(CyclicBarrier barrier, Supplier<T> work) {
    try {
      barrier.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return work.get();
  }
}
