package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commit → publish latency at a steady rate: {@value #WRITERS} writer threads of this JVM commit
 * one event per transaction at a fixed total rate, and one relay (1 worker × 100, unordered, the
 * default 25 ms – 1 s adaptive poll) publishes to a no-op publisher that notes when it first saw
 * each event. How the relay learns of a commit is the {@link Mode}. After the steady part, the
 * latency of single events written after a quiet period ("from idle"). Run by {@link Report}.
 *
 * <p>Uses the schema {@value #SCHEMA} of the benchmark database, dropped and created again per
 * mode.
 */
final class LatencyBenchmark {

  private static final Logger log = LoggerFactory.getLogger(LatencyBenchmark.class);
  static final String SCHEMA = "latency_bench";
  static final int WRITERS = 4;
  private static final String PAYLOAD = "{\"total\":{\"amount\":\"129.90\",\"currency\":\"EUR\"}}";

  /** How the relay learns that an event was committed. */
  enum Mode {
    /** The writer's after-commit hook calls {@code relay.wakeUp()} in the same JVM. */
    IN_PROCESS("in-process wake-up"),
    /**
     * The opt-in NOTIFY trigger and the relay's LISTEN connection; the writers have no hook, so the
     * relay hears of a commit only through PostgreSQL, as from a writer in another process.
     */
    NOTIFY("LISTEN/NOTIFY"),
    /** No signal: the adaptive poll alone. */
    POLL("polling alone");

    final String label;

    Mode(String label) {
      this.label = label;
    }
  }

  /**
   * One mode's figures: the steady part's events, sorted latencies and CPU, events not published
   * within the drain deadline, and the latencies of the events written after a quiet period.
   */
  record Result(
      Mode mode,
      long events,
      double seconds,
      long[] sortedNanos,
      CpuMeter.Sample cpu,
      long unpublished,
      long[] idleNanos,
      Duration quiet) {}

  private LatencyBenchmark() {}

  /**
   * Measures {@code mode}: {@code warmup}, then {@code length} at {@code rate} events/s, then
   * {@code idleSamples} single events each after {@code quiet} without writes.
   */
  static Result measure(
      Mode mode, int rate, Duration warmup, Duration length, int idleSamples, Duration quiet)
      throws InterruptedException {
    try (HikariDataSource pool =
        BenchDatabase.pool(BenchDatabase.url("txoutbox_bench"), WRITERS + 6, "latency-bench")) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
      OutboxSchema.migrate(pool, SCHEMA);
      if (mode == Mode.NOTIFY) {
        OutboxSchema.migrateNotifyTrigger(pool, SCHEMA);
      }
      FirstSeen seen = new FirstSeen(System::nanoTime);
      Map<UUID, Long> publishedAt = seen.at();
      OutboxRelay relay = pollingRelay(pool, SCHEMA, seen, mode == Mode.NOTIFY);
      Outbox.Builder builder = Outbox.builder().schema(SCHEMA);
      DefaultConfiguration writerConfig = new DefaultConfiguration();
      writerConfig.set(pool).set(SQLDialect.POSTGRES);
      if (mode == Mode.IN_PROCESS) {
        builder.afterCommit(relay::wakeUp);
      }
      Outbox outbox = builder.build();
      if (mode == Mode.IN_PROCESS) {
        writerConfig.set(outbox.transactionListener());
      }
      DSLContext writer = DSL.using(writerConfig);
      relay.start();
      try {
        CpuMeter meter = new CpuMeter(dsl);
        CpuMeter.Sample[] before = new CpuMeter.Sample[1];
        Steady steady =
            writeSteadily(
                writer,
                outbox,
                rate,
                warmup,
                length,
                System::nanoTime,
                () -> before[0] = meter.sample());
        Map<UUID, Long> committedAt = steady.committedAt();
        awaitSeen(committedAt, publishedAt, Duration.ofSeconds(30));
        CpuMeter.Sample cpu = meter.sample().minus(before[0]);
        long[] latencies = latencies(committedAt, publishedAt);
        long unpublished = committedAt.size() - latencies.length;
        log.info(
            "{}: {} events in {} s, p50 {} ms, p99 {} ms, {} failed writes",
            mode.label,
            latencies.length,
            String.format("%.1f", steady.seconds()),
            String.format("%.2f", Figures.percentile(latencies, 0.50) / 1e6),
            String.format("%.2f", Figures.percentile(latencies, 0.99) / 1e6),
            steady.failed());
        long[] idle = new long[idleSamples];
        for (int i = 0; i < idleSamples; i++) {
          TimeUnit.NANOSECONDS.sleep(quiet.toNanos());
          UUID id = write(writer, outbox);
          long committed = System.nanoTime();
          long until = committed + TimeUnit.SECONDS.toNanos(10);
          while (!publishedAt.containsKey(id) && System.nanoTime() < until) {
            TimeUnit.MILLISECONDS.sleep(1);
          }
          Long published = publishedAt.get(id);
          idle[i] = published == null ? -1 : Math.max(0, published - committed);
          log.info("{}: from idle {} ms", mode.label, String.format("%.1f", idle[i] / 1e6));
        }
        return new Result(
            mode, latencies.length, steady.seconds(), latencies, cpu, unpublished, idle, quiet);
      } finally {
        relay.close(Duration.ofSeconds(10));
      }
    }
  }

  /**
   * The relay of every polling mode: 1 worker × 100, unordered, the default adaptive poll, with the
   * LISTEN connection if {@code listen}.
   */
  static OutboxRelay pollingRelay(
      DataSource pool, String schema, Publisher publisher, boolean listen) {
    return OutboxRelay.builder()
        .dataSource(pool)
        .schema(schema)
        .publisher(publisher)
        .listenForNotifications(listen)
        .config(RelayConfig.builder().name("latency").workers(1).batchSize(100).build())
        .build();
  }

  /** A no-op publisher that notes, by {@code clock}, when it first saw each event. Thread-safe. */
  static final class FirstSeen implements Publisher {
    private final Map<UUID, Long> at = new ConcurrentHashMap<>();
    private final LongSupplier clock;

    FirstSeen(LongSupplier clock) {
      this.clock = clock;
    }

    /** Each event's first-seen time, live. */
    Map<UUID, Long> at() {
      return at;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      long now = clock.getAsLong();
      for (OutboxMessage m : messages) {
        at.putIfAbsent(m.id(), now);
      }
      return Collections.nCopies(messages.size(), PublishResult.published());
    }

    @Override
    public String name() {
      return "timing";
    }
  }

  /** The steady part's commit times by event id (by the writers' clock), seconds, failed writes. */
  record Steady(Map<UUID, Long> committedAt, double seconds, long failed) {}

  /**
   * {@value #WRITERS} threads commit one event per transaction at {@code rate} events/s in total:
   * {@code warmup} not counted, then {@code afterWarmup} runs and {@code length} is counted, each
   * event's time read by {@code clock} right after its commit returned.
   */
  static Steady writeSteadily(
      DSLContext writer,
      Outbox outbox,
      int rate,
      Duration warmup,
      Duration length,
      LongSupplier clock,
      Runnable afterWarmup)
      throws InterruptedException {
    Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
    AtomicLong failed = new AtomicLong();
    java.util.concurrent.atomic.AtomicBoolean counting =
        new java.util.concurrent.atomic.AtomicBoolean();
    ScheduledExecutorService writers = Executors.newScheduledThreadPool(WRITERS);
    long periodMicros = 1_000_000L * WRITERS / rate;
    for (int w = 0; w < WRITERS; w++) {
      writers.scheduleAtFixedRate(
          () -> {
            try {
              UUID id = write(writer, outbox);
              long now = clock.getAsLong();
              if (counting.get()) {
                committedAt.put(id, now);
              }
            } catch (RuntimeException e) {
              if (failed.incrementAndGet() == 1) {
                log.warn("a write failed (only the first is logged)", e);
              }
            }
          },
          w * periodMicros / WRITERS,
          periodMicros,
          TimeUnit.MICROSECONDS);
    }
    TimeUnit.NANOSECONDS.sleep(warmup.toNanos());
    afterWarmup.run();
    counting.set(true);
    long start = System.nanoTime();
    TimeUnit.NANOSECONDS.sleep(length.toNanos());
    writers.shutdown();
    if (!writers.awaitTermination(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("writers did not stop");
    }
    return new Steady(committedAt, (System.nanoTime() - start) / 1e9, failed.get());
  }

  /** Waits until every committed event was seen, or {@code timeout}. */
  static void awaitSeen(Map<UUID, Long> committedAt, Map<UUID, Long> seenAt, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!seenAt.keySet().containsAll(committedAt.keySet()) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
  }

  /**
   * The sorted latencies, seen − committed, of the committed events that were seen; an event seen
   * before its writer read the clock counts as 0.
   */
  static long[] latencies(Map<UUID, Long> committedAt, Map<UUID, Long> seenAt) {
    return committedAt.entrySet().stream()
        .filter(e -> seenAt.containsKey(e.getKey()))
        .mapToLong(e -> Math.max(0, seenAt.get(e.getKey()) - e.getValue()))
        .sorted()
        .toArray();
  }

  static UUID write(DSLContext writer, Outbox outbox) {
    String aggregate = "order-" + ThreadLocalRandom.current().nextInt(1_000);
    return writer.transactionResult(
        tx -> outbox.record(tx.dsl(), "order", aggregate, "order.changed", PAYLOAD));
  }
}
