package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the outbox write adds to an application's transaction, side by side in one process: writer
 * threads as fast as they can, each transaction one business row in a small {@code orders} table
 * and then
 *
 * <ol>
 *   <li>{@link Case#ALONE nothing more},
 *   <li>{@link Case#PLAIN_INSERT a plain jOOQ insert} of the same outbox-shaped row (same payload,
 *       same {@code traceparent} header) into a copy of the outbox table, the reference,
 *   <li>{@link Case#PLAIN_JDBC a plain JDBC insert} of the same row, the bound of any writer,
 *   <li>{@link Case#OUTBOX outbox.record(...)},
 *   <li>{@link Case#OUTBOX_NOTIFY outbox.record(...)} into an outbox with the NOTIFY trigger.
 * </ol>
 *
 * <p>For 1, 4 and 8 writer threads (or {@code --threads}), {@code --seconds} per case (default 20)
 * in {@code --rounds} interleaved rounds (default 2), after a 5 s warm-up of each case: tx/s, p50
 * and p99 of the transaction's time (commit included), JVM and PostgreSQL CPU µs per transaction,
 * the writer thread's own CPU µs in the second write (everything after the business row, measured
 * with the thread's CPU clock: the most direct figure of what {@code outbox.record} costs in the
 * JVM, untouched by GC, JIT and other processes), and the outbox's ratios to the plain insert. CPU
 * per transaction is steadier than tx/s on a shared machine. Not part of the test run:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.WriterBenchmark \
 *     [--seconds 20] [--rounds 2] [--threads 1,4,8] [--cases alone,plain,outbox,notify]
 * </pre>
 *
 * <p>Database from {@code OUTBOX_BENCH_JDBC_URL}, by default {@value #DATABASE} on the local server
 * (created if missing); it uses the schemas {@value #SCHEMA} and {@value #NOTIFY_SCHEMA}, dropped
 * and created again at start, and truncates their tables before each case. Prints a Markdown table.
 */
public final class WriterBenchmark {

  private static final Logger log = LoggerFactory.getLogger(WriterBenchmark.class);
  static final String SCHEMA = "writer_bench";

  /**
   * A database of its own by default: the PostgreSQL CPU figures count every backend of the
   * benchmark's database, so another benchmark on {@code txoutbox_bench} would count in.
   */
  static final String DATABASE = "txoutbox_writer_bench";

  static final String NOTIFY_SCHEMA = "writer_bench_notify";

  /** About 180 bytes of JSON, the payload of every event row. */
  static final String PAYLOAD =
      "{\"orderId\":\"order-%d\",\"customer\":\"c-42\",\"total\":{\"amount\":\"129.90\","
          + "\"currency\":\"EUR\"},\"lines\":[{\"sku\":\"A-1\",\"qty\":2},{\"sku\":\"B-7\","
          + "\"qty\":1}],\"channel\":\"web\"}";

  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  /** What each transaction writes after its business row. */
  enum Case {
    ALONE("alone", "business row alone"),
    PLAIN_INSERT("plain", "+ plain jOOQ insert of the row"),
    PLAIN_JDBC("jdbc", "+ plain JDBC insert of the row"),
    OUTBOX("outbox", "+ outbox.record"),
    OUTBOX_NOTIFY("notify", "+ outbox.record, NOTIFY trigger");

    final String key;
    final String label;

    Case(String key, String label) {
      this.key = key;
      this.label = label;
    }

    static Case of(String key) {
      for (Case c : values()) {
        if (c.key.equals(key)) {
          return c;
        }
      }
      throw new IllegalArgumentException(
          "--cases must name alone, plain, jdbc, outbox or notify but had " + key);
    }
  }

  /** One measured run: commits, seconds, sorted transaction times and CPU spent. */
  record Run(
      long commits,
      long failed,
      double seconds,
      long[] sortedNanos,
      CpuMeter.Sample cpu,
      long secondWriteCpuNanos) {}

  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  private WriterBenchmark() {}

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
    Duration length = Duration.ofSeconds(Integer.parseInt(options.getOrDefault("seconds", "20")));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "2"));
    int[] threadCounts =
        Arrays.stream(options.getOrDefault("threads", "1,4,8").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    List<Case> cases =
        Arrays.stream(options.getOrDefault("cases", "alone,plain,outbox,notify").split(","))
            .map(Case::of)
            .toList();
    String start = String.format("load average at start %s", MachineInfo.currentLoadAverage());
    Measured m = measure(threadCounts, cases, length, rounds, Duration.ofSeconds(5), true);
    System.out.println(
        table(m.runs(), threadCounts, cases, length, rounds)
            + "\n"
            + m.withoutDatabase()
            + "\n"
            + start
            + "; at end "
            + MachineInfo.currentLoadAverage()
            + "; PostgreSQL "
            + m.serverVersion()
            + "; "
            + Runtime.getRuntime().availableProcessors()
            + " cores; JDK "
            + Runtime.version());
  }

  /**
   * The runs of each writer count and case (keyed {@code "<threads>/<case key>"}), the mock
   * comparison (empty unless {@code mock}) and the server's version.
   */
  record Measured(Map<String, List<Run>> runs, String withoutDatabase, String serverVersion) {}

  /**
   * Runs every case at every writer count for {@code length}, in {@code rounds} interleaved rounds,
   * after a {@code warmup} of each case at the highest writer count, on the database of {@link
   * BenchDatabase#url(String) OUTBOX_BENCH_JDBC_URL} or {@value #DATABASE}.
   */
  static Measured measure(
      int[] threadCounts,
      List<Case> cases,
      Duration length,
      int rounds,
      Duration warmup,
      boolean mock)
      throws Exception {
    return measure(
        BenchDatabase.url(DATABASE),
        BenchDatabase.user(),
        BenchDatabase.password(),
        threadCounts,
        cases,
        length,
        rounds,
        warmup,
        mock,
        database -> () -> {});
  }

  /** What runs beside the writers: started once the schemas exist, closed after the last run. */
  interface Alongside {
    /**
     * Starts it on the benchmark database's pool (not the writers').
     *
     * @return what stops it
     */
    Running start(BenchDatabase database) throws Exception;
  }

  /** What runs beside the writers, started. */
  interface Running extends AutoCloseable {
    /**
     * Waits until it has consumed what the writers wrote, before the tables are truncated for the
     * next run: a relay that still holds events read but not claimed when their rows go waits for
     * them (the WAL relay up to its visibility wait) in the next run. Nothing by default.
     */
    default void settle() throws Exception {}
  }

  /**
   * {@link #measure(int[], List, Duration, int, Duration, boolean)} on the database {@code url},
   * with {@code alongside} running during the warm-up and the runs.
   */
  static Measured measure(
      String url,
      String user,
      String password,
      int[] threadCounts,
      List<Case> cases,
      Duration length,
      int rounds,
      Duration warmup,
      boolean mock,
      Alongside alongside)
      throws Exception {
    int maxThreads = Arrays.stream(threadCounts).max().orElse(1);
    try (BenchDatabase db = new BenchDatabase(url, user, password);
        HikariDataSource pool = pool(url, user, password, maxThreads + 2)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      createSchemas(pool, dsl);
      try (Running running = alongside.start(db)) {
        Map<Case, Writers> writers = new EnumMap<>(Case.class);
        for (Case c : cases) {
          writers.put(c, new Writers(dsl, c));
        }
        String withoutDatabase = mock ? withoutDatabase(writers) : "";
        for (Case c : cases) {
          running.settle();
          truncate(dsl);
          writers.get(c).flatOut(maxThreads, warmup, db.cpu());
        }
        Map<String, List<Run>> runs = new java.util.LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
          for (int threads : threadCounts) {
            for (Case c : cases) {
              running.settle();
              truncate(dsl);
              Run r = writers.get(c).flatOut(threads, length, db.cpu());
              log.info(
                  "round {} {} writers {}: {} tx/s, JVM {} µs/tx, PostgreSQL {} µs/tx",
                  round + 1,
                  threads,
                  c.label,
                  Math.round(r.commits() / r.seconds()),
                  String.format("%.1f", jvmMicros(r)),
                  String.format("%.1f", pgMicros(r)));
              runs.computeIfAbsent(threads + "/" + c.key, k -> new ArrayList<>()).add(r);
            }
          }
        }
        return new Measured(runs, withoutDatabase, db.serverVersion());
      }
    }
  }

  private static String table(
      Map<String, List<Run>> runs, int[] threadCounts, List<Case> cases, Duration length, int n) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                "Medians of %d interleaved rounds of %d s per case.%n%n"
                    + "| writers | case | tx/s | p50 ms | p99 ms | JVM µs/tx | PostgreSQL µs/tx |"
                    + " second write, thread CPU µs | tx/s vs plain | JVM µs vs plain (extra over alone) |"
                    + " second write vs plain |%n"
                    + "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n",
                n, length.toSeconds()));
    for (int threads : threadCounts) {
      List<Run> plain = runs.get(threads + "/" + Case.PLAIN_INSERT.key);
      List<Run> alone = runs.get(threads + "/" + Case.ALONE.key);
      for (Case c : cases) {
        List<Run> rs = runs.get(threads + "/" + c.key);
        double rate = median(rs, r -> r.commits() / r.seconds());
        double jvm = median(rs, WriterBenchmark::jvmMicros);
        double second = median(rs, WriterBenchmark::secondWriteMicros);
        String vsPlain = "";
        String cpuVsPlain = "";
        String secondVsPlain = "";
        if (plain != null && c != Case.ALONE && c != Case.PLAIN_INSERT) {
          double plainRate = median(plain, r -> r.commits() / r.seconds());
          double plainJvm = median(plain, WriterBenchmark::jvmMicros);
          vsPlain = String.format("%.2f×", rate / plainRate);
          cpuVsPlain = String.format("%.2f×", jvm / plainJvm);
          secondVsPlain =
              String.format("%.2f×", second / median(plain, WriterBenchmark::secondWriteMicros));
          if (alone != null) {
            double aloneJvm = median(alone, WriterBenchmark::jvmMicros);
            cpuVsPlain +=
                String.format(" (+%.0f vs +%.0f µs)", jvm - aloneJvm, plainJvm - aloneJvm);
          }
        }
        out.append(
            String.format(
                "| %d | %s | %.0f | %.2f | %.2f | %.1f | %.1f | %.1f | %s | %s | %s |%n",
                threads,
                c.label,
                rate,
                median(rs, r -> percentile(r.sortedNanos(), 0.50) / 1e6),
                median(rs, r -> percentile(r.sortedNanos(), 0.99) / 1e6),
                jvm,
                median(rs, WriterBenchmark::pgMicros),
                second,
                vsPlain,
                cpuVsPlain,
                secondVsPlain));
      }
    }
    return out.toString();
  }

  /**
   * The JVM's work alone: the second write of {@link Case#PLAIN_INSERT} and of {@link Case#OUTBOX}
   * on one thread against jOOQ's {@code MockConnection} (every statement answers "1 row"), so no
   * network and no database: jOOQ's rendering and binding, the writer's validation and JSON check.
   */
  private static String withoutDatabase(Map<Case, Writers> writers) {
    Writers plain = writers.get(Case.PLAIN_INSERT);
    Writers outbox = writers.get(Case.OUTBOX);
    if (plain == null || outbox == null) {
      return "";
    }
    java.sql.Connection mock =
        new org.jooq.tools.jdbc.MockConnection(
            ctx -> new org.jooq.tools.jdbc.MockResult[] {new org.jooq.tools.jdbc.MockResult(1)});
    // In a transaction, as the writer requires: the mock reports auto-commit off.
    java.sql.Connection inTransaction =
        (java.sql.Connection)
            java.lang.reflect.Proxy.newProxyInstance(
                WriterBenchmark.class.getClassLoader(),
                new Class<?>[] {java.sql.Connection.class},
                (proxy, method, methodArgs) -> {
                  if (method.getName().equals("getAutoCommit")) {
                    return false;
                  }
                  try {
                    return method.invoke(mock, methodArgs);
                  } catch (java.lang.reflect.InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    DSLContext tx = DSL.using(inTransaction, SQLDialect.POSTGRES);
    int n = 50_000;
    int rounds = 9;
    StringBuilder out =
        new StringBuilder(
            String.format(
                "Without a database (jOOQ MockConnection, one thread, median of %d interleaved"
                    + " rounds of %,d writes after one to warm up), thread CPU per write:%n%n"
                    + "| write | µs |%n|---|---:|%n",
                rounds - 1, n));
    double[][] micros = new double[2][rounds - 1];
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < 2; i++) {
        Writers w = i == 0 ? plain : outbox;
        long before = THREADS.getCurrentThreadCpuTime();
        for (int k = 0; k < n; k++) {
          w.secondWrite(tx, k, "order-" + k);
        }
        if (round > 0) {
          micros[i][round - 1] = (THREADS.getCurrentThreadCpuTime() - before) / 1e3 / n;
        }
      }
    }
    double plainMicros = median(micros[0]);
    double outboxMicros = median(micros[1]);
    out.append(String.format("| plain jOOQ insert | %.2f |%n", plainMicros));
    out.append(String.format("| outbox.record | %.2f |%n", outboxMicros));
    out.append(String.format("| ratio | %.2f× |%n", outboxMicros / plainMicros));
    return out.toString();
  }

  static double jvmMicros(Run r) {
    return r.cpu().jvmNanos() / 1e3 / Math.max(1, r.commits());
  }

  static double secondWriteMicros(Run r) {
    return r.secondWriteCpuNanos() / 1e3 / Math.max(1, r.commits());
  }

  static double pgMicros(Run r) {
    return r.cpu().postgresNanos() / 1e3 / Math.max(1, r.commits());
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    return Figures.median(runs, f);
  }

  private static double median(double[] values) {
    return Figures.median(values);
  }

  static long percentile(long[] sorted, double p) {
    return Figures.percentile(sorted, p);
  }

  /** The median over {@code runs} of their transaction times' {@code p}-quantile, in ms. */
  static double millis(List<Run> runs, double p) {
    return median(runs, r -> percentile(r.sortedNanos(), p) / 1e6);
  }

  /** {@link Case#PLAIN_JDBC}'s statement: the outbox row's columns, the values bound. */
  static final String JDBC_INSERT =
      "insert into "
          + SCHEMA
          + ".outbox_copy (id, aggregate_type, aggregate_id, event_type, payload, headers,"
          + " retry_after) values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)";

  /** The writer threads of one case. */
  static final class Writers {
    private final DSLContext dsl;
    private final Case kase;
    private final Outbox outbox;
    private final Table<?> orders = DSL.table(DSL.name(SCHEMA, "orders"));
    private final Field<UUID> orderId = DSL.field(DSL.name("id"), SQLDataType.UUID);
    private final Field<String> orderAggregate =
        DSL.field(DSL.name("aggregate_id"), SQLDataType.VARCHAR);
    private final Table<?> copy = DSL.table(DSL.name(SCHEMA, "outbox_copy"));
    private final Field<UUID> id = DSL.field(DSL.name("id"), SQLDataType.UUID);
    private final Field<String> aggregateType =
        DSL.field(DSL.name("aggregate_type"), SQLDataType.VARCHAR);
    private final Field<String> aggregateId =
        DSL.field(DSL.name("aggregate_id"), SQLDataType.VARCHAR);
    private final Field<String> eventType = DSL.field(DSL.name("event_type"), SQLDataType.VARCHAR);
    private final Field<JSONB> payload = DSL.field(DSL.name("payload"), SQLDataType.JSONB);
    private final Field<JSONB> headers = DSL.field(DSL.name("headers"), SQLDataType.JSONB);
    private final Field<java.time.OffsetDateTime> retryAfter =
        DSL.field(DSL.name("retry_after"), SQLDataType.TIMESTAMPWITHTIMEZONE);

    Writers(DSLContext dsl, Case kase) {
      this.dsl = dsl;
      this.kase = kase;
      this.outbox =
          Outbox.builder().schema(kase == Case.OUTBOX_NOTIFY ? NOTIFY_SCHEMA : SCHEMA).build();
    }

    Run flatOut(int threads, Duration length, CpuMeter cpu) throws InterruptedException {
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      LongAdder commits = new LongAdder();
      LongAdder failed = new LongAdder();
      LongAdder secondWrite = new LongAdder();
      ConcurrentLinkedQueue<long[]> times = new ConcurrentLinkedQueue<>();
      CpuMeter.Sample before = cpu.sample();
      long start = System.nanoTime();
      long end = start + length.toNanos();
      for (int t = 0; t < threads; t++) {
        pool.execute(
            () -> {
              long[] mine = new long[1 << 16];
              int n = 0;
              while (System.nanoTime() < end) {
                long t0 = System.nanoTime();
                try {
                  secondWrite.add(writeOne());
                } catch (RuntimeException e) {
                  failed.increment();
                  if (failed.sum() == 1) {
                    log.warn("a transaction failed (only the first is logged)", e);
                  }
                  continue;
                }
                if (n == mine.length) {
                  mine = Arrays.copyOf(mine, n * 2);
                }
                mine[n++] = System.nanoTime() - t0;
                commits.increment();
              }
              times.add(Arrays.copyOf(mine, n));
            });
      }
      pool.shutdown();
      if (!pool.awaitTermination(length.toSeconds() + 60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("writers did not stop");
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      CpuMeter.Sample spent = cpu.sample().minus(before);
      long[] all = times.stream().flatMapToLong(Arrays::stream).sorted().toArray();
      return new Run(commits.sum(), failed.sum(), seconds, all, spent, secondWrite.sum());
    }

    /**
     * @return this thread's CPU nanoseconds in what follows the business row (the second write)
     */
    private long writeOne() {
      int order = ThreadLocalRandom.current().nextInt(1_000_000);
      String aggregate = "order-" + order;
      return dsl.transactionResult(
          tx -> {
            DSLContext t = tx.dsl();
            t.insertInto(orders)
                .columns(orderId, orderAggregate)
                .values(UUID.randomUUID(), aggregate)
                .execute();
            long cpuStart = THREADS.getCurrentThreadCpuTime();
            secondWrite(t, order, aggregate);
            return THREADS.getCurrentThreadCpuTime() - cpuStart;
          });
    }

    /** What follows the business row in this case's transaction {@code t}. */
    void secondWrite(DSLContext t, int order, String aggregate) {
      switch (kase) {
        case ALONE -> {}
        case PLAIN_INSERT ->
            t.insertInto(copy)
                .columns(id, aggregateType, aggregateId, eventType, payload, headers, retryAfter)
                .values(
                    UUID.randomUUID(),
                    "order",
                    aggregate,
                    "order.created",
                    JSONB.valueOf(String.format(PAYLOAD, order)),
                    JSONB.valueOf("{\"traceparent\":\"" + TRACEPARENT + "\"}"),
                    null)
                .execute();
        case PLAIN_JDBC ->
            t.connection(
                c -> {
                  try (java.sql.PreparedStatement insert = c.prepareStatement(JDBC_INSERT)) {
                    insert.setObject(1, UUID.randomUUID());
                    insert.setString(2, "order");
                    insert.setString(3, aggregate);
                    insert.setString(4, "order.created");
                    insert.setString(5, String.format(PAYLOAD, order));
                    insert.setString(6, "{\"traceparent\":\"" + TRACEPARENT + "\"}");
                    insert.setNull(7, java.sql.Types.TIMESTAMP_WITH_TIMEZONE);
                    insert.executeUpdate();
                  }
                });
        case OUTBOX, OUTBOX_NOTIFY ->
            outbox.record(
                t,
                OutboxEvent.builder("order", aggregate, "order.created")
                    .payload(String.format(PAYLOAD, order))
                    .header("traceparent", TRACEPARENT)
                    .build());
      }
    }
  }

  static void createSchemas(HikariDataSource pool, DSLContext dsl) {
    for (String schema : List.of(SCHEMA, NOTIFY_SCHEMA)) {
      dsl.dropSchemaIfExists(schema).cascade().execute();
      OutboxSchema.migrate(pool, schema);
    }
    OutboxSchema.migrateNotifyTrigger(pool, NOTIFY_SCHEMA);
    createOrdersTable(dsl);
    // The reference's table: the outbox table's shape, defaults and indexes, under another name.
    dsl.execute(
        "CREATE TABLE "
            + SCHEMA
            + ".outbox_copy (LIKE "
            + SCHEMA
            + ".outbox_events INCLUDING ALL)");
  }

  /** Creates {@code <SCHEMA>.orders}, the business table the writers insert into. */
  private static void createOrdersTable(DSLContext dsl) {
    dsl.createTableIfNotExists(DSL.name(SCHEMA, "orders"))
        .column("id", SQLDataType.UUID.notNull())
        .column("aggregate_id", SQLDataType.VARCHAR(255).notNull())
        .column(
            "created_at",
            SQLDataType.TIMESTAMPWITHTIMEZONE.notNull().defaultValue(DSL.currentOffsetDateTime()))
        .primaryKey("id")
        .execute();
  }

  static void truncate(DSLContext dsl) {
    dsl.truncate(
            DSL.table(DSL.name(SCHEMA, "orders")),
            DSL.table(DSL.name(SCHEMA, "outbox_copy")),
            DSL.table(DSL.name(SCHEMA, "outbox_events")),
            DSL.table(DSL.name(NOTIFY_SCHEMA, "outbox_events")))
        .execute();
  }

  static HikariDataSource pool(String url, String user, String password, int size) {
    return BenchDatabase.pool(url, user, password, size, "writers");
  }
}
