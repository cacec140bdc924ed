package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writers at a fixed rate over a few aggregates, and relays in ordered mode publishing to a no-op
 * publisher that checks the order: the backlog, the latency from commit to publish, and order
 * violations (an event first delivered after a later one of its aggregate). The writers use {@code
 * lockPerAggregate}; the relays poll, as they would for writers in other processes.
 *
 * <pre>
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.LiveOrderedBenchmark \
 *     [--seconds 60] [--rate 1000] [--aggregates 50] [--relays 2] [--ordering per_aggregate|none]
 * </pre>
 */
public final class LiveOrderedBenchmark {

  private static final Logger log = LoggerFactory.getLogger(LiveOrderedBenchmark.class);
  static final String SCHEMA = "live_bench";
  private static final int WRITERS = 8;

  private LiveOrderedBenchmark() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception | Error e) {
      log.error("benchmark failed", e);
      System.exit(1);
    }
    System.exit(0);
  }

  /** The no-op broker that checks the order of first deliveries and times them. */
  private static final class CheckingBroker implements Publisher {
    final Map<UUID, Long> publishedAt = new ConcurrentHashMap<>();
    final Map<String, Long> lastSequence = new ConcurrentHashMap<>();
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final AtomicLong duplicates = new AtomicLong();

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      long now = System.nanoTime();
      for (OutboxMessage m : messages) {
        if (publishedAt.putIfAbsent(m.id(), now) != null) {
          duplicates.incrementAndGet();
          continue;
        }
        Long before = lastSequence.put(m.aggregateId(), m.sequence());
        if (before != null && before > m.sequence()) {
          violations.add(m.aggregateId() + ": " + m.sequence() + " after " + before);
        }
      }
      return Collections.nCopies(messages.size(), PublishResult.published());
    }
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> options = DrainBenchmark.parse(args);
    int seconds = Integer.parseInt(options.getOrDefault("seconds", "60"));
    int rate = Integer.parseInt(options.getOrDefault("rate", "1000"));
    int aggregates = Integer.parseInt(options.getOrDefault("aggregates", "50"));
    int relayCount = Integer.parseInt(options.getOrDefault("relays", "2"));
    Ordering ordering =
        Ordering.valueOf(options.getOrDefault("ordering", "per_aggregate").toUpperCase());
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(
        System.getenv()
            .getOrDefault(
                "OUTBOX_BENCH_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/txoutbox_bench"));
    config.setUsername(System.getenv().getOrDefault("OUTBOX_BENCH_DB_USER", "postgres"));
    config.setPassword(System.getenv().getOrDefault("OUTBOX_BENCH_DB_PASSWORD", ""));
    config.setMaximumPoolSize(WRITERS + 4 * relayCount + 2);
    config.setPoolName("live-bench");
    try (HikariDataSource pool = new HikariDataSource(config)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
      OutboxSchema.migrate(pool, SCHEMA);
      OutboxSchema.migrateOrderingIndex(pool, SCHEMA);
      OutboxAdmin admin = OutboxAdmin.create(pool, SCHEMA);
      Outbox outbox = Outbox.builder().schema(SCHEMA).lockPerAggregate(true).build();
      CheckingBroker broker = new CheckingBroker();
      List<Long> cycleNanos = Collections.synchronizedList(new ArrayList<>());
      AtomicLong batches = new AtomicLong();
      AtomicLong claimedEvents = new AtomicLong();
      RelayListener cycles =
          new RelayListener() {
            @Override
            public void batchCompleted(int claimed, int published, int failed, Duration d) {
              batches.incrementAndGet();
              claimedEvents.addAndGet(claimed);
              cycleNanos.add(d.toNanos());
            }
          };
      List<OutboxRelay> relays = new ArrayList<>();
      for (int i = 0; i < relayCount; i++) {
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(pool)
                .schema(SCHEMA)
                .publisher(broker)
                .listener(cycles)
                .config(
                    RelayConfig.builder()
                        .name("live-" + i)
                        .ordering(ordering)
                        .workers(2)
                        .batchSize(100)
                        .minPollInterval(Duration.ofMillis(10))
                        .maxPollInterval(Duration.ofMillis(100))
                        .build())
                .build();
        relay.start();
        relays.add(relay);
      }
      Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
      AtomicInteger failedWrites = new AtomicInteger();
      CpuMeter meter = new CpuMeter(dsl);
      CpuMeter.Sample cpuBefore = meter.sample();
      ScheduledExecutorService writers = Executors.newScheduledThreadPool(WRITERS);
      long periodMicros = 1_000_000L * WRITERS / rate;
      String payload = "{\"total\":{\"amount\":\"129.90\",\"currency\":\"EUR\"}}";
      for (int w = 0; w < WRITERS; w++) {
        writers.scheduleAtFixedRate(
            () -> {
              String aggregate = "order-" + ThreadLocalRandom.current().nextInt(aggregates);
              try {
                UUID id =
                    dsl.transactionResult(
                        tx ->
                            outbox.publish(tx.dsl(), "order", aggregate, "order.changed", payload));
                committedAt.put(id, System.nanoTime());
              } catch (RuntimeException e) {
                failedWrites.incrementAndGet();
              }
            },
            w * periodMicros / WRITERS,
            periodMicros,
            TimeUnit.MICROSECONDS);
      }
      long maxBacklog = 0;
      long start = System.nanoTime();
      for (int s = 1; s <= seconds; s++) {
        long until = start + TimeUnit.SECONDS.toNanos(s);
        TimeUnit.NANOSECONDS.sleep(Math.max(0, until - System.nanoTime()));
        long backlog = admin.pendingCount();
        maxBacklog = Math.max(maxBacklog, backlog);
        if (s % 10 == 0) {
          log.info("{} s: {} written, backlog {}", s, committedAt.size(), backlog);
        }
      }
      writers.shutdown();
      writers.awaitTermination(30, TimeUnit.SECONDS);
      long writeNanos = System.nanoTime() - start;
      long drainDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (admin.pendingCount() > 0 && System.nanoTime() < drainDeadline) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      CpuMeter.Sample cpu = meter.sample().minus(cpuBefore);
      relays.forEach(r -> r.close(Duration.ofSeconds(10)));

      List<Long> latencies = new ArrayList<>();
      long unpublished = 0;
      for (Map.Entry<UUID, Long> e : committedAt.entrySet()) {
        Long published = broker.publishedAt.get(e.getKey());
        if (published == null) {
          unpublished++;
        } else {
          latencies.add(Math.max(0, published - e.getValue()));
        }
      }
      Collections.sort(latencies);
      int written = committedAt.size();
      String report =
          String.format(
              "# Live ordered benchmark%n%n"
                  + "%d writers at %d events/s for %d s over %d aggregates (lockPerAggregate),"
                  + " %d relays of 2 workers x 100 in %s, polling 10-100 ms, no-op"
                  + " publisher.%n%n"
                  + "| written | write rate | failed writes | max backlog | p50 ms | p99 ms | max ms"
                  + " | unpublished | order violations | duplicates | CPU µs/event JVM / PG |%n"
                  + "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n"
                  + "| %,d | %,.0f/s | %d | %,d | %.1f | %.1f | %.1f | %d | %d | %d | %.0f / %.0f |%n",
              WRITERS,
              rate,
              seconds,
              aggregates,
              relayCount,
              ordering,
              written,
              written / (writeNanos / 1e9),
              failedWrites.get(),
              maxBacklog,
              percentileMillis(latencies, 50),
              percentileMillis(latencies, 99),
              latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1) / 1e6,
              unpublished,
              broker.violations.size(),
              broker.duplicates.get(),
              cpu.jvmNanos() / 1e3 / Math.max(1, written),
              cpu.postgresNanos() / 1e3 / Math.max(1, written));
      Collections.sort(cycleNanos);
      report +=
          String.format(
              "%nNon-empty cycles: %,d, %.1f events each; cycle duration p50 %.1f ms, p99 %.1f ms.%n",
              batches.get(),
              claimedEvents.get() / (double) Math.max(1, batches.get()),
              percentileMillis(cycleNanos, 50),
              percentileMillis(cycleNanos, 99));
      broker.violations.stream().limit(10).forEach(v -> log.warn("order violation: {}", v));
      DrainBenchmark.writeReport("live-ordered", report);
    }
  }

  private static double percentileMillis(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)) / 1e6;
  }
}
