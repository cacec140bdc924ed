package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
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
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(BenchDatabase.url("txoutbox_bench"));
    config.setUsername(BenchDatabase.user());
    config.setPassword(BenchDatabase.password());
    config.setMaximumPoolSize(WRITERS + 6);
    config.setPoolName("latency-bench");
    try (HikariDataSource pool = new HikariDataSource(config)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
      OutboxSchema.migrate(pool, SCHEMA);
      if (mode == Mode.NOTIFY) {
        OutboxSchema.migrateNotifyTrigger(pool, SCHEMA);
      }
      Map<UUID, Long> publishedAt = new ConcurrentHashMap<>();
      Publisher timing =
          new Publisher() {
            @Override
            public List<PublishResult> publish(List<OutboxMessage> messages) {
              long now = System.nanoTime();
              for (OutboxMessage m : messages) {
                publishedAt.putIfAbsent(m.id(), now);
              }
              return Collections.nCopies(messages.size(), PublishResult.published());
            }

            @Override
            public String name() {
              return "timing";
            }
          };
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(pool)
              .schema(SCHEMA)
              .publisher(timing)
              .listenForNotifications(mode == Mode.NOTIFY)
              .config(RelayConfig.builder().name("latency").workers(1).batchSize(100).build())
              .build();
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
        Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
        AtomicLong failed = new AtomicLong();
        ScheduledExecutorService writers = Executors.newScheduledThreadPool(WRITERS);
        long periodMicros = 1_000_000L * WRITERS / rate;
        long warmupEnd = System.nanoTime() + warmup.toNanos();
        for (int w = 0; w < WRITERS; w++) {
          writers.scheduleAtFixedRate(
              () -> {
                try {
                  UUID id = write(writer, outbox);
                  long now = System.nanoTime();
                  if (now > warmupEnd) {
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
        CpuMeter meter = new CpuMeter(dsl);
        CpuMeter.Sample before = meter.sample();
        long start = System.nanoTime();
        TimeUnit.NANOSECONDS.sleep(length.toNanos());
        writers.shutdown();
        if (!writers.awaitTermination(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("writers did not stop");
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!publishedAt.keySet().containsAll(committedAt.keySet())
            && System.nanoTime() < deadline) {
          TimeUnit.MILLISECONDS.sleep(20);
        }
        CpuMeter.Sample cpu = meter.sample().minus(before);
        long[] latencies =
            committedAt.entrySet().stream()
                .filter(e -> publishedAt.containsKey(e.getKey()))
                .mapToLong(e -> Math.max(0, publishedAt.get(e.getKey()) - e.getValue()))
                .sorted()
                .toArray();
        long unpublished = committedAt.size() - latencies.length;
        log.info(
            "{}: {} events in {} s, p50 {} ms, p99 {} ms, {} failed writes",
            mode.label,
            latencies.length,
            String.format("%.1f", seconds),
            String.format("%.2f", Figures.percentile(latencies, 0.50) / 1e6),
            String.format("%.2f", Figures.percentile(latencies, 0.99) / 1e6),
            failed.get());
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
            mode, latencies.length, seconds, latencies, cpu, unpublished, idle, quiet);
      } finally {
        relay.close(Duration.ofSeconds(10));
      }
    }
  }

  private static UUID write(DSLContext writer, Outbox outbox) {
    String aggregate = "order-" + ThreadLocalRandom.current().nextInt(1_000);
    return writer.transactionResult(
        tx -> outbox.record(tx.dsl(), "order", aggregate, "order.changed", PAYLOAD));
  }
}
