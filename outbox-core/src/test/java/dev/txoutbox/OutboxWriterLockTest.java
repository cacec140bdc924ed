package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.Configuration;
import org.jooq.DSLContext;
import org.jooq.TransactionalCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code lockPerAggregate(true)}: bounded locks, no deadlock within a call, and what remains. */
class OutboxWriterLockTest {

  @RegisterExtension static final WriterFixture fx = new WriterFixture("writer_lock");
  private DSLContext dsl;
  private Outbox locking;

  @BeforeEach
  void writer() {
    dsl = fx.dsl;
    locking = fx.writer().lockPerAggregate(true).build();
  }

  @Test
  void concurrentWritersOfSeveralAggregatesPerTransactionInRandomOrderNeverDeadlock()
      throws Exception {
    int writers = 4;
    int transactionsEach = 2_500;
    long seed = Long.getLong("txoutbox.lockTest.seed", System.nanoTime());
    System.out.println(
        "lockPerAggregate concurrency: seed "
            + seed
            + " (replay with -Dtxoutbox.lockTest.seed="
            + seed
            + ")");
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    long started = System.nanoTime();
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        Random random = new Random(seed + w);
        results.add(pool.submit(() -> writeRandomTransactions(random, transactionsEach)));
      }
      int events = 0;
      for (Future<Integer> result : results) {
        events += result.get(5, TimeUnit.MINUTES); // any deadlock would surface here
      }
      System.out.printf(
          "lockPerAggregate concurrency: %d transactions, %d events over 50 aggregates, %d ms%n",
          writers * transactionsEach, events, (System.nanoTime() - started) / 1_000_000);
      assertThat(fx.eventCount()).isEqualTo(events);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Transactions of 2 to 4 aggregates out of 50, in random order, each in one recordAll. */
  private int writeRandomTransactions(Random random, int transactions) {
    List<String> aggregates = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      aggregates.add("a-" + i);
    }
    int events = 0;
    for (int t = 0; t < transactions; t++) {
      Collections.shuffle(aggregates, random);
      List<OutboxEvent> batch = new ArrayList<>();
      for (String aggregate : aggregates.subList(0, 2 + random.nextInt(3))) {
        batch.add(OutboxEvent.of("account", aggregate, "account.changed", "{}"));
      }
      dsl.transaction(tx -> locking.recordAll(tx.dsl(), batch));
      events += batch.size();
    }
    return events;
  }

  @Test
  void recordAllOf50000AggregatesHoldsAtMost256Locks() {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 50_000; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{}"));
    }
    long locks =
        dsl.transactionResult(
            tx -> {
              locking.recordAll(tx.dsl(), events);
              return tx.dsl()
                  .resultQuery(
                      "select count(*) from pg_locks"
                          + " where locktype = 'advisory' and pid = pg_backend_pid()")
                  .fetchOne(0, Long.class);
            });
    assertThat(locks).isEqualTo(256);
    assertThat(fx.eventCount()).isEqualTo(50_000);
  }

  @Test
  void inAutoCommitModeTheLocksAndTheInsertShareOneTransaction() {
    // Otherwise the lock statement would commit, releasing its locks, before the INSERT runs. A
    // trigger of this test's table refuses any INSERT whose transaction holds no advisory lock.
    String schema = fx.db.schema();
    fx.db.execute(
        "CREATE FUNCTION "
            + schema
            + ".require_lock() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
            + " IF NOT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory'"
            + " AND pid = pg_backend_pid() AND granted) THEN"
            + " RAISE EXCEPTION 'insert without its aggregate lock'; END IF; RETURN NULL; END $$");
    fx.db.execute(
        "CREATE TRIGGER require_lock BEFORE INSERT ON "
            + schema
            + ".outbox_events FOR EACH STATEMENT EXECUTE FUNCTION "
            + schema
            + ".require_lock()");
    try {
      Outbox standalone = fx.writer().lockPerAggregate(true).allowAutoCommit(true).build();
      standalone.record(dsl, "account", "z", "account.changed", "{}");
      standalone.recordAll(
          dsl,
          List.of(
              OutboxEvent.of("account", "z", "account.changed", "{}"),
              OutboxEvent.of("account", "w", "account.changed", "{}")));
      assertThat(fx.eventCount()).isEqualTo(3);
    } finally {
      fx.db.execute("DROP TRIGGER require_lock ON " + schema + ".outbox_events");
      fx.db.execute("DROP FUNCTION " + schema + ".require_lock()");
    }
  }

  @Test
  void aLaterCallInTheTransactionAlsoMakesTheNextWriterOfItsAggregateWait() throws Exception {
    CountDownLatch firstWrote = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CompletableFuture<UUID> first =
        inTransaction(
            tx -> {
              write(tx, "x");
              UUID y = write(tx, "y");
              firstWrote.countDown();
              releaseFirst.await();
              return y;
            });
    assertThat(firstWrote.await(30, TimeUnit.SECONDS)).isTrue();
    AtomicInteger secondPid = new AtomicInteger();
    CompletableFuture<UUID> second =
        inTransaction(
            tx -> {
              secondPid.set(
                  tx.dsl().resultQuery("select pg_backend_pid()").fetchOne(0, Integer.class));
              return write(tx, "y");
            });
    await().atMost(Duration.ofSeconds(30)).until(() -> waitsForAdvisoryLock(secondPid.get()));
    assertThat(second).isNotDone();
    releaseFirst.countDown();
    UUID a = first.get(30, TimeUnit.SECONDS);
    UUID b = second.get(30, TimeUnit.SECONDS);
    assertThat(seq(b)).as("committed second, sequenced second").isGreaterThan(seq(a));
  }

  @Test
  void crossingCallsOverTheSameTwoAggregatesAreTheDeadlockThatRemains() throws Exception {
    // T1 writes x then y, T2 writes y then x, each in two calls, interleaved: no commit order puts
    // both aggregates in seq order, so one must fail. PostgreSQL detects it and aborts one.
    CountDownLatch xWritten = new CountDownLatch(1);
    CountDownLatch yWritten = new CountDownLatch(1);
    CompletableFuture<UUID> t1 =
        inTransaction(
            tx -> {
              write(tx, "x");
              xWritten.countDown();
              yWritten.await();
              return write(tx, "y");
            });
    CompletableFuture<UUID> t2 =
        inTransaction(
            tx -> {
              xWritten.await();
              write(tx, "y");
              yWritten.countDown();
              return write(tx, "x");
            });
    List<String> failures = new ArrayList<>();
    for (CompletableFuture<UUID> t : List.of(t1, t2)) {
      try {
        t.get(60, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        failures.add(sqlState(e));
      }
    }
    assertThat(failures).containsExactly("40P01");
    assertThat(fx.eventCount()).isEqualTo(2);
  }

  private <T> CompletableFuture<T> inTransaction(TransactionalCallable<T> work) {
    return CompletableFuture.supplyAsync(() -> dsl.transactionResult(work));
  }

  private UUID write(Configuration tx, String aggregateId) {
    return locking.record(tx.dsl(), "account", aggregateId, "account.changed", "{}");
  }

  private static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql.getSQLState();
      }
    }
    return String.valueOf(e);
  }

  /** Whether backend {@code pid} is blocked on an advisory lock (another writer's slot). */
  private boolean waitsForAdvisoryLock(int pid) {
    return pid != 0
        && "advisory"
            .equals(
                dsl.resultQuery("select wait_event from pg_stat_activity where pid = ?", pid)
                    .fetchOne(0, String.class));
  }

  private long seq(UUID id) {
    return fx.stored(OUTBOX_EVENTS.SEQ, id);
  }
}
