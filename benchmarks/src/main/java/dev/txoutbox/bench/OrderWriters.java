package dev.txoutbox.bench;

import dev.txoutbox.Outbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writer threads of {@link CommitOrderBenchmark}: each transaction inserts one business row into
 * {@code <schema>.orders} and then writes one event of a random aggregate through the txoutbox
 * writer, as an application would. Counts commits, failures and deadlocks, and records when each
 * event's transaction returned from its commit.
 */
final class OrderWriters {

  private static final Logger log = LoggerFactory.getLogger(OrderWriters.class);
  static final String PAYLOAD = "{\"total\":{\"amount\":\"129.90\",\"currency\":\"EUR\"}}";
  private static final String DEADLOCK = "40P01";

  private final DSLContext dsl;
  private final Outbox outbox;
  private final Table<?> orders;
  private final Field<UUID> orderId = DSL.field(DSL.name("id"), SQLDataType.UUID);
  private final Field<String> orderAggregate =
      DSL.field(DSL.name("aggregate_id"), SQLDataType.VARCHAR);
  private final int aggregates;
  private final boolean extraStatement;

  /** {@code System.nanoTime()} after each event's commit returned, by event id. */
  final Map<UUID, Long> committedAt = new ConcurrentHashMap<>();

  private final ConcurrentLinkedQueue<Long> transactionNanos = new ConcurrentLinkedQueue<>();
  private final LongAdder failed = new LongAdder();
  private final LongAdder deadlocks = new LongAdder();
  private final AtomicBoolean failureLogged = new AtomicBoolean();

  /**
   * What the writers did: commits, failed and deadlocked transactions, and time per transaction.
   */
  record Result(int commits, long failed, long deadlocks, double seconds, List<Long> sortedNanos) {
    double rate() {
      return commits / seconds;
    }
  }

  /**
   * @param extraStatement run one more statement ({@code SELECT 1}) in each transaction before the
   *     event, as many round trips as the writer's aggregate lock takes, without the lock
   */
  OrderWriters(
      DSLContext dsl, Outbox outbox, String schema, int aggregates, boolean extraStatement) {
    this.dsl = dsl;
    this.outbox = outbox;
    this.orders = DSL.table(DSL.name(schema, "orders"));
    this.aggregates = aggregates;
    this.extraStatement = extraStatement;
  }

  /** Creates {@code <schema>.orders}, the business table the writers insert into. */
  static void createOrdersTable(DSLContext dsl, String schema) {
    dsl.createTableIfNotExists(DSL.name(schema, "orders"))
        .column("id", SQLDataType.UUID.notNull())
        .column("aggregate_id", SQLDataType.VARCHAR(255).notNull())
        .column(
            "created_at",
            SQLDataType.TIMESTAMPWITHTIMEZONE.notNull().defaultValue(DSL.currentOffsetDateTime()))
        .primaryKey("id")
        .execute();
  }

  /** {@code threads} writers, each starting its next transaction as soon as one commits. */
  Result flatOut(int threads, Duration length) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long start = System.nanoTime();
    long end = start + length.toNanos();
    for (int t = 0; t < threads; t++) {
      pool.execute(
          () -> {
            while (System.nanoTime() < end) {
              writeOne();
            }
          });
    }
    pool.shutdown();
    if (!pool.awaitTermination(length.toSeconds() + 60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("writers did not stop");
    }
    return result(System.nanoTime() - start);
  }

  /** {@code threads} writers sharing {@code rate} transactions per second, evenly spaced. */
  Result atRate(int threads, int rate, Duration length) throws InterruptedException {
    ScheduledExecutorService pool = Executors.newScheduledThreadPool(threads);
    long periodMicros = 1_000_000L * threads / rate;
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      pool.scheduleAtFixedRate(
          this::writeOne, t * periodMicros / threads, periodMicros, TimeUnit.MICROSECONDS);
    }
    TimeUnit.NANOSECONDS.sleep(length.toNanos());
    pool.shutdown();
    if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("writers did not stop");
    }
    return result(System.nanoTime() - start);
  }

  /** One transaction: a business row, then one event of a random aggregate. */
  private void writeOne() {
    String aggregate = "order-" + ThreadLocalRandom.current().nextInt(aggregates);
    long start = System.nanoTime();
    try {
      UUID id =
          dsl.transactionResult(
              tx -> {
                tx.dsl()
                    .insertInto(orders)
                    .columns(orderId, orderAggregate)
                    .values(UUID.randomUUID(), aggregate)
                    .execute();
                if (extraStatement) {
                  tx.dsl().selectOne().fetch();
                }
                return outbox.record(tx.dsl(), "order", aggregate, "order.changed", PAYLOAD);
              });
      long end = System.nanoTime();
      committedAt.put(id, end);
      transactionNanos.add(end - start);
    } catch (DataAccessException e) {
      if (DEADLOCK.equals(e.sqlState())) {
        deadlocks.increment();
      } else {
        failed(e);
      }
    } catch (RuntimeException e) {
      failed(e);
    }
  }

  private void failed(RuntimeException e) {
    failed.increment();
    if (failureLogged.compareAndSet(false, true)) {
      log.warn("a writer's transaction failed (only the first failure is logged)", e);
    }
  }

  private Result result(long nanos) {
    List<Long> sorted = new ArrayList<>(transactionNanos);
    sorted.sort(null);
    return new Result(committedAt.size(), failed.sum(), deadlocks.sum(), nanos / 1e9, sorted);
  }
}
