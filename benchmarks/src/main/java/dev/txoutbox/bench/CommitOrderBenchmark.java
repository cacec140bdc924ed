package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two candidate ways to make each aggregate's events visible to the relay in {@code seq} order,
 * side by side in one process, and whether each does. The <b>lock</b>: the writer's {@code
 * lockPerAggregate(true)}, a transaction-scoped advisory lock on the aggregate's slot, so two
 * transactions writing one aggregate never overlap. The <b>visibility horizon</b>: a prototype
 * outbox table (migrated by {@link OutboxSchema#migrate} into a schema of its own) with a column
 * {@code xid xid8 NOT NULL DEFAULT pg_current_xact_id()}, writers without the lock, and a claim of
 * only the rows with {@code xid < pg_snapshot_xmin(pg_current_snapshot())}.
 *
 * <ol>
 *   <li>Writer throughput: {@code --writers} threads as fast as they can, each transaction one
 *       business row and one event, over {@code --aggregates} and over {@code --few-aggregates}
 *       aggregates: without the lock, with it, without it but with one more statement (the lock's
 *       round trip alone), and without it on the prototype table.
 *   <li>Visibility: writers at {@code --rate} transactions per second and a poller claiming every
 *       {@code --poll-ms} with or without the horizon; how long after its commit an event is
 *       claimed, how often an event is claimed after a later {@code seq} of its aggregate, with and
 *       without a long transaction ({@code --long-ms} every {@code --long-every-ms}).
 * </ol>
 *
 * <pre>
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.CommitOrderBenchmark \
 *     [--throughput-seconds 1] [--rounds 5] [--seconds 4] [--writers 8] [--aggregates 50] \
 *     [--few-aggregates 5] [--rate 1000] [--poll-ms 10] [--long-ms 2000] [--long-every-ms 4000]
 * </pre>
 *
 * <p>The 8 throughput cases run {@code --throughput-seconds} in each of {@code --rounds}
 * interleaved rounds, the 12 visibility cases {@code --seconds} each: about 100 s with the
 * defaults. Database from {@code OUTBOX_BENCH_JDBC_URL} like {@link DrainBenchmark} (created if
 * missing); it uses the schemas {@value #LOCK_SCHEMA} and {@value #XID_SCHEMA}, dropped and created
 * again at start, and runs the long transaction of one case in the server's {@code postgres}
 * database.
 */
public final class CommitOrderBenchmark {

  private static final Logger log = LoggerFactory.getLogger(CommitOrderBenchmark.class);
  static final String LOCK_SCHEMA = "commit_order_seq";
  static final String XID_SCHEMA = "commit_order_xid";

  /** The writers compared. */
  enum Writer {
    NO_LOCK("no lock", LOCK_SCHEMA, false, false),
    LOCK("lockPerAggregate(true)", LOCK_SCHEMA, true, false),
    /** The lock's extra statement without the lock: what its round trip costs alone. */
    EXTRA_STATEMENT("no lock, + `SELECT 1`", LOCK_SCHEMA, false, true),
    XID_COLUMN("no lock, xid8 column", XID_SCHEMA, false, false);

    final String label;
    final String schema;
    final boolean lock;
    final boolean extraStatement;

    Writer(String label, String schema, boolean lock, boolean extraStatement) {
      this.label = label;
      this.schema = schema;
      this.lock = lock;
      this.extraStatement = extraStatement;
    }

    OrderWriters writers(DSLContext dsl, Outbox outbox, int aggregates) {
      return new OrderWriters(dsl, outbox, schema, aggregates, extraStatement);
    }
  }

  /** A visibility case: the writer, whether the claim uses the horizon, and what runs beside. */
  record VisibilityCase(
      Writer writer, boolean horizon, int aggregates, LongTransactions.Kind longTransaction) {}

  private CommitOrderBenchmark() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception | Error e) {
      log.error("benchmark failed", e);
      System.exit(1);
    }
    System.exit(0);
  }

  /** The command line's settings. */
  record Settings(
      Duration length,
      Duration throughputLength,
      int rounds,
      int writers,
      int aggregates,
      int fewAggregates,
      int rate,
      Duration poll,
      Duration longLength,
      Duration longEvery) {

    static Settings parse(Map<String, String> options) {
      return new Settings(
          Duration.ofSeconds(positive(options, "seconds", 4)),
          Duration.ofSeconds(positive(options, "throughput-seconds", 1)),
          positive(options, "rounds", 5),
          positive(options, "writers", 8),
          positive(options, "aggregates", 50),
          positive(options, "few-aggregates", 5),
          positive(options, "rate", 1000),
          Duration.ofMillis(positive(options, "poll-ms", 10)),
          Duration.ofMillis(positive(options, "long-ms", 2000)),
          Duration.ofMillis(positive(options, "long-every-ms", 4000)));
    }

    private static int positive(Map<String, String> options, String name, int defaultValue) {
      int value = Integer.parseInt(options.getOrDefault(name, String.valueOf(defaultValue)));
      if (value <= 0) {
        throw new IllegalArgumentException("--" + name + " must be positive but was " + value);
      }
      return value;
    }
  }

  private static void run(String[] args) throws Exception {
    Settings settings = Settings.parse(DrainBenchmark.parse(args));
    String url =
        System.getenv()
            .getOrDefault(
                "OUTBOX_BENCH_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/txoutbox_bench");
    String user = System.getenv().getOrDefault("OUTBOX_BENCH_DB_USER", "postgres");
    String password = System.getenv().getOrDefault("OUTBOX_BENCH_DB_PASSWORD", "");

    // BenchDatabase creates the database if it is missing and meters CPU; the cases need a larger
    // pool of their own.
    try (BenchDatabase db = new BenchDatabase(url, user, password);
        HikariDataSource pool = pool(url, user, password, settings.writers() + 4)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      createSchemas(pool, dsl);
      String machine =
          String.format(
              "database %s; %s; load average at start %s",
              dsl.fetchValue(DSL.currentCatalog()),
              dsl.fetchValue(DSL.function("version", String.class)),
              loadAverage());
      Map<Writer, Outbox> outboxes = new EnumMap<>(Writer.class);
      for (Writer w : Writer.values()) {
        outboxes.put(w, Outbox.builder().schema(w.schema).lockPerAggregate(w.lock).build());
      }

      Writer.NO_LOCK
          .writers(dsl, outboxes.get(Writer.NO_LOCK), settings.aggregates())
          .flatOut(settings.writers(), Duration.ofSeconds(2)); // warm-up, not reported
      String throughput = throughput(db, dsl, outboxes, settings);

      StringBuilder visibility = new StringBuilder();
      for (VisibilityCase c : visibilityCases(settings.aggregates(), settings.fewAggregates())) {
        truncate(dsl);
        Outbox outbox = outboxes.get(c.writer());
        String schema = c.writer().schema;
        OrderWriters load = c.writer().writers(dsl, outbox, c.aggregates());
        VisibilityPoller poller =
            new VisibilityPoller(
                pool, schema, c.horizon(), c.writer() == Writer.XID_COLUMN, settings.poll());
        LongTransactions longTx =
            new LongTransactions(
                c.longTransaction(),
                pool,
                url,
                user,
                password,
                outbox,
                schema,
                settings.longLength());
        OutsideXidSampler outside = new OutsideXidSampler(pool);
        outside.start();
        poller.start();
        longTx.start(settings.longEvery());
        OrderWriters.Result r = load.atRate(settings.writers(), settings.rate(), settings.length());
        longTx.stop();
        long unclaimed = awaitClaimed(load.committedAt, poller.claimedAt, Duration.ofSeconds(10));
        poller.stop();
        outside.stop();
        if (poller.fullClaims() > 0) {
          log.warn("{}: {} claims came back full", c, poller.fullClaims());
        }
        visibility.append(row(c, r, load.committedAt, poller, unclaimed, outside.maxAgeMillis()));
      }
      DrainBenchmark.writeReport(
          "commit-order",
          report(args, settings, machine + ", at end " + loadAverage(), throughput, visibility));
    }
  }

  /** One measured block of flat-out writers: what they did, and the CPU it took. */
  private record Block(OrderWriters.Result result, CpuMeter.Sample cpu) {
    double cpuMicros(long nanos) {
      return nanos / 1e3 / Math.max(1, result.commits());
    }
  }

  /**
   * Every writer flat out for {@code --throughput-seconds}, over each count of aggregates,
   * interleaved in {@code --rounds}; returns the table's rows: medians over the rounds.
   */
  private static String throughput(
      BenchDatabase db, DSLContext dsl, Map<Writer, Outbox> outboxes, Settings settings)
      throws InterruptedException {
    List<Integer> aggregateCounts = List.of(settings.aggregates(), settings.fewAggregates());
    Map<String, List<Block>> blocks = new LinkedHashMap<>();
    for (int round = 1; round <= settings.rounds(); round++) {
      for (int count : aggregateCounts) {
        for (Writer w : Writer.values()) {
          truncate(dsl);
          CpuMeter.Sample before = db.cpu().sample();
          OrderWriters.Result r =
              w.writers(dsl, outboxes.get(w), count)
                  .flatOut(settings.writers(), settings.throughputLength());
          Block b = new Block(r, db.cpu().sample().minus(before));
          blocks.computeIfAbsent(w + "/" + count, k -> new ArrayList<>()).add(b);
          log.info(
              "round {}: {} over {} aggregates: {} tx/s",
              round,
              w.label,
              count,
              Math.round(r.rate()));
        }
      }
    }
    StringBuilder rows = new StringBuilder();
    for (int count : aggregateCounts) {
      List<Block> noLock = blocks.get(Writer.NO_LOCK + "/" + count);
      for (Writer w : Writer.values()) {
        List<Block> runs = blocks.get(w + "/" + count);
        double rate = median(runs, b -> b.result().rate());
        // Each round's ratio to that round's no-lock block, a few seconds apart: the load drifts
        // less between neighbours than across the run.
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
          ratios.add(runs.get(i).result().rate() / noLock.get(i).result().rate());
        }
        rows.append(
            String.format(
                "| %s | %d | %,.0f | %,.0f–%,.0f | %.2f× | %d | %d | %.1f | %.1f | %.0f | %.0f |%n",
                w.label,
                count,
                rate,
                runs.stream().mapToDouble(b -> b.result().rate()).min().orElse(0),
                runs.stream().mapToDouble(b -> b.result().rate()).max().orElse(0),
                median(ratios, Double::doubleValue),
                runs.stream().mapToLong(b -> b.result().failed()).sum(),
                runs.stream().mapToLong(b -> b.result().deadlocks()).sum(),
                median(runs, b -> millis(b.result().sortedNanos(), 50)),
                median(runs, b -> millis(b.result().sortedNanos(), 99)),
                median(runs, b -> b.cpuMicros(b.cpu().jvmNanos())),
                median(runs, b -> b.cpuMicros(b.cpu().postgresNanos()))));
      }
    }
    return rows.toString();
  }

  private static <T> double median(List<T> values, ToDoubleFunction<T> value) {
    double[] sorted = values.stream().mapToDouble(value).sorted().toArray();
    return sorted[sorted.length / 2];
  }

  static List<VisibilityCase> visibilityCases(int aggregates, int fewAggregates) {
    List<VisibilityCase> cases = new ArrayList<>();
    for (LongTransactions.Kind kind : LongTransactions.Kind.values()) {
      cases.add(new VisibilityCase(Writer.XID_COLUMN, true, aggregates, kind));
    }
    cases.add(new VisibilityCase(Writer.LOCK, false, aggregates, LongTransactions.Kind.NONE));
    cases.add(
        new VisibilityCase(Writer.LOCK, false, aggregates, LongTransactions.Kind.UNRELATED_XID));
    cases.add(
        new VisibilityCase(Writer.LOCK, false, aggregates, LongTransactions.Kind.SAME_AGGREGATE));
    cases.add(new VisibilityCase(Writer.XID_COLUMN, false, aggregates, LongTransactions.Kind.NONE));
    cases.add(
        new VisibilityCase(Writer.XID_COLUMN, true, fewAggregates, LongTransactions.Kind.NONE));
    cases.add(new VisibilityCase(Writer.LOCK, false, fewAggregates, LongTransactions.Kind.NONE));
    cases.add(
        new VisibilityCase(Writer.XID_COLUMN, false, fewAggregates, LongTransactions.Kind.NONE));
    return cases;
  }

  /** Waits until the poller claimed every committed event; returns how many it did not. */
  private static long awaitClaimed(
      Map<UUID, Long> committed, Map<UUID, Long> claimed, Duration deadline)
      throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    while (!claimed.keySet().containsAll(committed.keySet()) && System.nanoTime() < end) {
      TimeUnit.MILLISECONDS.sleep(20);
    }
    return committed.keySet().stream().filter(id -> !claimed.containsKey(id)).count();
  }

  private static String row(
      VisibilityCase c,
      OrderWriters.Result r,
      Map<UUID, Long> committed,
      VisibilityPoller poller,
      long unclaimed,
      long outsideXidMillis) {
    List<Long> delays = new ArrayList<>();
    committed.forEach(
        (id, at) -> {
          Long seen = poller.claimedAt.get(id);
          if (seen != null) {
            delays.add(Math.max(0, seen - at));
          }
        });
    delays.sort(null);
    long late = delays.stream().filter(d -> d > TimeUnit.MILLISECONDS.toNanos(100)).count();
    log.info(
        "{}, {}, {} aggregates, long transaction {}: delay p50 {} ms p99 {} ms, {} seq violations",
        c.writer().label,
        c.horizon() ? "horizon" : "plain",
        c.aggregates(),
        c.longTransaction().label,
        String.format("%.1f", millis(delays, 50)),
        String.format("%.1f", millis(delays, 99)),
        poller.seqViolations());
    return String.format(
        "| %s | %s | %d | %s | %,d | %,.0f/s | %.1f / %.0f | %.1f | %.1f | %.0f | %.1f%% | %d | %s | %d | %,d |%n",
        c.writer().label,
        c.horizon() ? "horizon" : "plain",
        c.aggregates(),
        c.longTransaction().label,
        r.commits(),
        r.rate(),
        millis(r.sortedNanos(), 99),
        millis(r.sortedNanos(), 100),
        millis(delays, 50),
        millis(delays, 99),
        millis(delays, 100),
        100.0 * late / Math.max(1, delays.size()),
        poller.seqViolations(),
        c.writer() == Writer.XID_COLUMN ? String.valueOf(poller.xidViolations()) : "—",
        unclaimed,
        outsideXidMillis);
  }

  private static String report(
      String[] args, Settings s, String machine, CharSequence throughput, CharSequence visibility) {
    return String.format(
        "# Commit order: advisory lock or visibility horizon%n%n"
            + "`CommitOrderBenchmark %s`; %d cores, Java %s, %s.%n%n"
            + "## Writer throughput%n%n"
            + "%d writer threads as fast as they can, %d s per case, %d interleaved rounds"
            + " (medians; min–max of the rate; `vs no lock` is the median of each round's ratio to"
            + " the no-lock block of that round); a transaction inserts one business row, then"
            + " writes one event through the txoutbox writer. Time per transaction from its start"
            + " to its commit's return; CPU of this JVM and of the database's PostgreSQL backends"
            + " per committed transaction.%n%n"
            + "| writer | aggregates | tx/s | min–max | vs no lock | failed | deadlocked"
            + " | tx p50 ms | tx p99 ms | CPU µs/tx JVM | CPU µs/tx PostgreSQL |%n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n"
            + "%s%n"
            + "## Visibility%n%n"
            + "%d writers at %,d transactions/s for %d s; one poller claims every %d ms in seq"
            + " order (claim and mark in one statement, up to 20,000 rows, so no visible row is"
            + " left for the next claim): `plain` claims every pending row,"
            + " `horizon` only rows with `xid < pg_snapshot_xmin(pg_current_snapshot())`. Delay"
            + " is from the writer's commit returning to the claim returning. A long transaction"
            + " of %.1f s starts 1 s into the case and every %.1f s after. A seq violation is an"
            + " event claimed after a later seq of its aggregate was claimed by an earlier poll;"
            + " an (xid, seq) violation the same for the order of (xid, seq). The last column is"
            + " the greatest age seen (sampled every 50 ms) of the oldest transaction holding an"
            + " xid that is not this benchmark's, in any database of the server (other"
            + " applications' work): it holds back the horizon too.%n%n"
            + "| writer | claim | aggregates | long transaction | events | write rate"
            + " | writer tx p99 / max ms | delay p50 ms | p99 ms | max ms | delayed > 100 ms"
            + " | seq violations | (xid, seq) violations | unclaimed"
            + " | oldest outside xid, ms |%n"
            + "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%n"
            + "%s",
        String.join(" ", args),
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        machine,
        s.writers(),
        s.throughputLength().toSeconds(),
        s.rounds(),
        throughput,
        s.writers(),
        s.rate(),
        s.length().toSeconds(),
        s.poll().toMillis(),
        s.longLength().toMillis() / 1000.0,
        s.longEvery().toMillis() / 1000.0,
        visibility);
  }

  /** The two schemas, created anew: the outbox as migrated, and the prototype with {@code xid}. */
  private static void createSchemas(HikariDataSource pool, DSLContext dsl) {
    for (String schema : List.of(LOCK_SCHEMA, XID_SCHEMA)) {
      dsl.dropSchemaIfExists(schema).cascade().execute();
      OutboxSchema.migrate(pool, schema);
      OutboxSchema.migrateOrderingIndex(pool, schema);
      OrderWriters.createOrdersTable(dsl, schema);
    }
    // jOOQ has no xid8 data type: the prototype's column is added with plain SQL.
    dsl.execute(
        "ALTER TABLE {0} ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id()",
        DSL.name(XID_SCHEMA, "outbox_events"));
  }

  private static void truncate(DSLContext dsl) {
    for (String schema : List.of(LOCK_SCHEMA, XID_SCHEMA)) {
      dsl.truncate(DSL.table(DSL.name(schema, "outbox_events"))).execute();
      dsl.truncate(DSL.table(DSL.name(schema, "orders"))).execute();
    }
  }

  private static HikariDataSource pool(String url, String user, String password, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setPoolName("commit-order");
    config.addDataSourceProperty("ApplicationName", OutsideXidSampler.APPLICATION_NAME);
    return new HikariDataSource(config);
  }

  /** The 1, 5 and 15 minute load averages of this machine, shared with other work. */
  private static String loadAverage() throws IOException {
    String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return fields[0] + " " + fields[1] + " " + fields[2];
  }

  /** The {@code p}th percentile of sorted nanoseconds, in milliseconds; 100 is the maximum. */
  private static double millis(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100)) / 1e6;
  }
}
