package dev.txoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link OutboxInbox#process}: the duplicate check and the work as one, on the real PostgreSQL. */
class InboxProcessTest {

  private static TestDatabase db;
  private static DSLContext dsl;
  private static OutboxInbox inbox;

  @BeforeAll
  static void migrate() {
    db = TestDatabase.createEmpty("inbox_process", 4);
    OutboxInbox.migrate(db.dataSource(), db.schema());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    db.execute("CREATE TABLE " + db.schema() + ".bookings (event_id uuid)");
    inbox = OutboxInbox.builder().schema(db.schema()).build();
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void empty() {
    db.execute("TRUNCATE " + db.schema() + ".bookings, " + db.schema() + ".inbox_processed_events");
  }

  @Test
  void theWorkRunsTheFirstTimeOnlyInTheCallersTransaction() {
    InboxEvent event = event(UUID.randomUUID());

    assertThat(deliver(event, book(event))).isTrue();
    assertThat(deliver(event, book(event))).isFalse();

    assertThat(bookings(event)).isEqualTo(1);
    assertThat(marks()).isEqualTo(1);
  }

  @Test
  void theCallersRollBackUndoesTheMarkAndTheWork() {
    InboxEvent event = event(UUID.randomUUID());

    assertThatThrownBy(
            () ->
                dsl.transaction(
                    c -> {
                      assertThat(process(c.dsl(), event, book(event))).isTrue();
                      throw new IllegalStateException("the batch failed");
                    }))
        .hasMessage("the batch failed");

    assertThat(marks()).isZero();
    assertThat(bookings(event)).isZero();
    assertThat(deliver(event, book(event))).isTrue();
  }

  /**
   * One event's work fails in a batch that catches the failure and commits the rest: its mark is
   * undone with its half-done work, so its next delivery books it; the others stay booked once.
   */
  @Test
  void aFailureInTheWorkUndoesItsMarkAndItsEffectsWhileTheBatchCommitsTheRest() {
    List<InboxEvent> batch = List.of(event(UUID.randomUUID()), event(UUID.randomUUID()));
    InboxEvent failing = event(UUID.randomUUID());

    dsl.transaction(
        c -> {
          DSLContext tx = c.dsl();
          assertThat(process(tx, batch.get(0), book(batch.get(0)))).isTrue();
          assertThatThrownBy(
                  () ->
                      process(
                          tx,
                          failing,
                          bookThen(
                              failing,
                              work -> {
                                throw new IllegalStateException("the invoice service said no");
                              })))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage("the invoice service said no");
          assertThat(process(tx, batch.get(1), book(batch.get(1)))).isTrue();
        });

    assertThat(bookings(batch.get(0))).isEqualTo(1);
    assertThat(bookings(batch.get(1))).isEqualTo(1);
    assertThat(bookings(failing)).isZero();
    assertThat(marks()).isEqualTo(2);
    assertThat(deliver(failing, book(failing))).isTrue();
    assertThat(bookings(failing)).isEqualTo(1);
  }

  @Test
  void aDatabaseErrorInTheWorkLeavesTheCallersTransactionUsable() {
    InboxEvent failing = event(UUID.randomUUID());
    InboxEvent next = event(UUID.randomUUID());

    dsl.transaction(
        c -> {
          DSLContext tx = c.dsl();
          assertThatThrownBy(
                  () ->
                      process(tx, failing, bookThen(failing, work -> work.execute("SELECT 1 / 0"))))
              .isInstanceOf(DataAccessException.class)
              .hasMessageContaining("division by zero");
          // Without the savepoint PostgreSQL would refuse every later statement of tx.
          assertThat(process(tx, next, book(next))).isTrue();
        });

    assertThat(bookings(failing)).isZero();
    assertThat(bookings(next)).isEqualTo(1);
    assertThat(marks()).isEqualTo(1);
  }

  @Test
  void theSameEventDeliveredConcurrentlyToTwoThreadsRunsTheWorkOnce() throws Exception {
    InboxEvent event = event(UUID.randomUUID());
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch firstWorking = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    InboxWork work =
        bookThen(
            event,
            tx -> {
              runs.incrementAndGet();
              firstWorking.countDown();
              await().atMost(Duration.ofSeconds(30)).until(() -> releaseFirst.getCount() == 0);
            });
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> first = threads.submit(() -> deliver(event, work));
      assertThat(firstWorking.await(30, TimeUnit.SECONDS)).isTrue();
      Future<Boolean> second = threads.submit(() -> deliver(event, work));
      // The second delivery's mark waits on the first's, uncommitted while its work runs.
      LockWaits.awaitAMarkWaiting(dsl, db.schema());
      releaseFirst.countDown();

      assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
      assertThat(second.get(30, TimeUnit.SECONDS)).isFalse();
    } finally {
      releaseFirst.countDown();
      threads.shutdownNow();
    }
    assertThat(runs).hasValue(1);
    assertThat(bookings(event)).isEqualTo(1);
  }

  @Test
  void whenTheFirstDeliveryFailsTheConcurrentOneRunsTheWork() throws Exception {
    InboxEvent event = event(UUID.randomUUID());
    CountDownLatch firstWorking = new CountDownLatch(1);
    CountDownLatch failFirst = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> first =
          threads.submit(
              () ->
                  deliver(
                      event,
                      bookThen(
                          event,
                          tx -> {
                            firstWorking.countDown();
                            await()
                                .atMost(Duration.ofSeconds(30))
                                .until(() -> failFirst.getCount() == 0);
                            throw new IllegalStateException("first delivery failed");
                          })));
      assertThat(firstWorking.await(30, TimeUnit.SECONDS)).isTrue();
      Future<Boolean> second = threads.submit(() -> deliver(event, book(event)));
      LockWaits.awaitAMarkWaiting(dsl, db.schema());
      failFirst.countDown();

      assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS))
          .hasRootCauseMessage("first delivery failed");
      assertThat(second.get(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      failFirst.countDown();
      threads.shutdownNow();
    }
    assertThat(bookings(event)).isEqualTo(1);
    assertThat(marks()).isEqualTo(1);
  }

  @Test
  void badArgumentsAndAutoCommitAreRefusedBeforeTheWorkRuns() {
    InboxEvent event = event(UUID.randomUUID());
    AtomicInteger runs = new AtomicInteger();
    InboxWork work = tx -> runs.incrementAndGet();

    assertThatThrownBy(() -> inbox.process(dsl, "billing", event, work))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "OutboxInbox.process(tx, ...) needs the consumer's transaction, but the connection is"
                + " in auto-commit mode: call it inside dsl.transaction(...)");
    assertThatThrownBy(
            () -> dsl.transaction(c -> inbox.process(c.dsl(), "\u00A0", event.eventId(), work)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("consumerName must not be blank");
    assertThatThrownBy(() -> dsl.transaction(c -> inbox.process(c.dsl(), "billing", event, null)))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("work");

    assertThat(runs).hasValue(0);
    assertThat(marks()).isZero();
  }

  /** One delivery in a transaction of its own. */
  private static boolean deliver(InboxEvent event, InboxWork work) {
    return dsl.transactionResult(c -> process(c.dsl(), event, work));
  }

  /** One delivery to the consumer {@code billing} in {@code tx}. */
  private static boolean process(DSLContext tx, InboxEvent event, InboxWork work) {
    return inbox.process(tx, "billing", event, work);
  }

  private static InboxEvent event(UUID id) {
    return InboxEvent.from(
        Map.of(
            OutboxHeaders.EVENT_ID, id.toString(),
            OutboxHeaders.EVENT_TYPE, "invoice.created",
            OutboxHeaders.AGGREGATE_TYPE, "invoice",
            OutboxHeaders.AGGREGATE_ID, "i-1",
            OutboxHeaders.CREATED_AT, "2026-12-06T12:00:00.000000Z"));
  }

  private static InboxWork book(InboxEvent event) {
    return tx ->
        tx.insertInto(bookingsTable())
            .columns(DSL.field("event_id", SQLDataType.UUID))
            .values(event.eventId())
            .execute();
  }

  /** Books {@code event}, then runs {@code then}. */
  private static InboxWork bookThen(InboxEvent event, InboxWork then) {
    return tx -> {
      book(event).run(tx);
      then.run(tx);
    };
  }

  private static int bookings(InboxEvent event) {
    return dsl.fetchCount(bookingsTable(), DSL.field("event_id").eq(event.eventId()));
  }

  private static int marks() {
    return dsl.fetchCount(DSL.table(DSL.name(db.schema(), "inbox_processed_events")));
  }

  private static Table<Record> bookingsTable() {
    return DSL.table(DSL.name(db.schema(), "bookings"));
  }
}
