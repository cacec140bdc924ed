package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The time of one relay cycle (claim 100, publish to a no-op publisher, mark processed, commit) at
 * 10,000, 100,000 and 1,000,000 pending events spread over 10 and over 1,000 aggregates, on a table
 * that was never analyzed (autovacuum off for it) and on a fresh one after ANALYZE, ordered per
 * aggregate and unordered, interleaved in blocks of a few cycles. The events are {@link
 * SeedEvents}'s.
 *
 * <pre>
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.ClaimBenchmark \
 *     [--cycles 20] [--sizes 10000,100000,1000000] [--aggregates 10,1000]
 * </pre>
 *
 * <p>Database from {@code OUTBOX_BENCH_JDBC_URL} like {@link DrainBenchmark}; it uses the schema
 * {@value #SCHEMA}, dropped and created again for each cell.
 */
public final class ClaimBenchmark {

  private static final Logger log = LoggerFactory.getLogger(ClaimBenchmark.class);
  static final String SCHEMA = "claim_bench";
  private static final int BATCH = 100;

  private ClaimBenchmark() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception | Error e) {
      log.error("benchmark failed", e);
      System.exit(1);
    }
    System.exit(0);
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> options = DrainBenchmark.parse(args);
    int cycles = Integer.parseInt(options.getOrDefault("cycles", "20"));
    List<Integer> sizes = ints(options.getOrDefault("sizes", "10000,100000,1000000"));
    List<Integer> aggregateCounts = ints(options.getOrDefault("aggregates", "10,1000"));
    StringBuilder report = new StringBuilder();
    report.append("# Claim benchmark\n\n");
    report.append(
        "One relay cycle of "
            + BATCH
            + " (claim, no-op publish, mark processed, commit), milliseconds: median and 90th"
            + " percentile of "
            + cycles
            + " cycles per cell, ordered (PER_AGGREGATE) and unordered cycles interleaved.\n\n");
    report.append(
        "CPU per cycle: this JVM and the database's PostgreSQL backends, measured over blocks of "
            + BLOCK
            + " cycles.\n\n");
    report.append(
        "| aggregates | pending | statistics | ordered p50 | ordered p90 | unordered p50 |"
            + " unordered p90 | ordered CPU ms JVM / PG | unordered CPU ms JVM / PG |\n");
    report.append("|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    try (HikariDataSource pool =
        BenchDatabase.pool(BenchDatabase.url("txoutbox_bench"), 4, "claim-bench")) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      // Warm the JIT up on a throwaway table first: its compilations would count as CPU.
      recreate(pool, dsl);
      seed(dsl, 25_000, 10);
      measure(pool, new CpuMeter(dsl), 100);
      for (int aggregates : aggregateCounts) {
        for (int size : sizes) {
          for (String statistics : List.of("never analyzed", "after ANALYZE")) {
            // A fresh table for each, so that each starts from the same backlog.
            recreate(pool, dsl);
            seed(dsl, size, aggregates);
            if (statistics.startsWith("after")) {
              execute(pool, "ANALYZE " + SCHEMA + ".outbox_events");
            }
            Map<Ordering, Cell> cells = measure(pool, new CpuMeter(dsl), cycles);
            Cell ordered = cells.get(Ordering.PER_AGGREGATE);
            Cell unordered = cells.get(Ordering.NONE);
            String row =
                String.format(
                    "| %,d | %,d | %s | %.2f | %.2f | %.2f | %.2f | %.2f / %.2f | %.2f / %.2f |%n",
                    aggregates,
                    size,
                    statistics,
                    percentile(ordered.millis(), 50),
                    percentile(ordered.millis(), 90),
                    percentile(unordered.millis(), 50),
                    percentile(unordered.millis(), 90),
                    ordered.cpuMillis(true, cycles),
                    ordered.cpuMillis(false, cycles),
                    unordered.cpuMillis(true, cycles),
                    unordered.cpuMillis(false, cycles));
            log.info(row.trim());
            report.append(row);
          }
        }
      }
    }
    DrainBenchmark.writeReport("claim", report.toString());
  }

  /** Cycles measured back to back, and their CPU time. */
  private static final int BLOCK = 5;

  /** One ordering's cycle times in milliseconds and the CPU they cost. */
  record Cell(List<Double> millis, CpuMeter.Sample[] cpu) {
    double cpuMillis(boolean jvm, int cycles) {
      return (jvm ? cpu[0].jvmNanos() : cpu[0].postgresNanos()) / 1e6 / cycles;
    }
  }

  /** Cycle times, ordered and unordered blocks of {@value #BLOCK} cycles alternating. */
  static Map<Ordering, Cell> measure(HikariDataSource pool, CpuMeter meter, int cycles)
      throws InterruptedException {
    Publisher noop = new NoopTarget().publisher();
    Map<Ordering, OutboxRelay> relays = new TreeMap<>();
    Map<Ordering, Cell> cells = new TreeMap<>();
    for (Ordering ordering : List.of(Ordering.NONE, Ordering.PER_AGGREGATE)) {
      relays.put(
          ordering,
          OutboxRelay.builder()
              .dataSource(pool)
              .schema(SCHEMA)
              .publisher(noop)
              .config(
                  RelayConfig.builder()
                      .name("claim-" + ordering.name().toLowerCase())
                      .batchSize(BATCH)
                      .ordering(ordering)
                      .build())
              .build());
      cells.put(
          ordering, new Cell(new ArrayList<>(), new CpuMeter.Sample[] {new CpuMeter.Sample(0, 0)}));
    }
    // Warm up the statement caches and the JIT of both before measuring.
    for (int i = 0; i < BLOCK; i++) {
      for (OutboxRelay relay : relays.values()) {
        relay.runOnce();
      }
    }
    for (int done = 0; done < cycles; done += BLOCK) {
      for (Map.Entry<Ordering, OutboxRelay> e : relays.entrySet()) {
        Cell cell = cells.get(e.getKey());
        CpuMeter.Sample before = meter.sample();
        for (int i = 0; i < BLOCK; i++) {
          long start = System.nanoTime();
          int claimed = e.getValue().runOnce();
          cell.millis().add((System.nanoTime() - start) / 1e6);
          if (claimed != BATCH) {
            throw new IllegalStateException(e.getKey() + " cycle claimed " + claimed);
          }
        }
        cell.cpu()[0] = cell.cpu()[0].plus(meter.sample().minus(before));
      }
    }
    return cells;
  }

  static double percentile(List<Double> values, int p) {
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
  }

  /** A fresh schema with the ordering index, whose table autovacuum never analyzes. */
  static void recreate(HikariDataSource pool, DSLContext dsl) {
    dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
    OutboxSchema.migrate(pool, SCHEMA);
    OutboxSchema.migrateOrderingIndex(pool, SCHEMA);
    // A storage parameter: not part of jOOQ's ALTER TABLE.
    execute(pool, "ALTER TABLE " + SCHEMA + ".outbox_events SET (autovacuum_enabled = false)");
  }

  /** {@code count} pending events, the n-th of aggregate {@code order-(n % aggregates)}. */
  static void seed(DSLContext dsl, int count, int aggregates) {
    seed(dsl, count, aggregates, null, null);
  }

  /**
   * {@code count} events like {@link #seed(DSLContext, int, int)}, with {@code processed_at} and
   * {@code retry_after} set to the given SQL values (null for none): processed rows of the history,
   * or delayed events.
   */
  static void seed(
      DSLContext dsl,
      int count,
      int aggregates,
      Field<java.time.OffsetDateTime> processedAt,
      Field<java.time.OffsetDateTime> retryAfter) {
    SeedEvents.insert(dsl, SCHEMA, count, aggregates, processedAt, retryAfter);
  }

  static void execute(HikariDataSource pool, String sql) {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static List<Integer> ints(String csv) {
    List<Integer> values = new ArrayList<>();
    for (String v : csv.split(",")) {
      values.add(Integer.parseInt(v.trim()));
    }
    return values;
  }
}
