package dev.txoutbox.bench;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.wal.WalRelay;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outbox under steady load for a long time: writer threads commit one event per transaction at
 * a fixed rate while one relay (polling, woken in-process after each commit, or the WAL relay on a
 * logical-replication server of its own) publishes them to a no-op publisher, marking them
 * processed (and a retention job deleting processed rows every minute) or deleting them. Every
 * minute it records the outbox table's total and index size, live and dead tuples and the
 * autovacuum and autoanalyze counts ({@code pg_stat_user_tables}), the pending backlog, a claim of
 * 100 timed on the table as it is then (in a transaction rolled back), the relay's cycle time,
 * commit → publish p50/p99 of the minute's events, and CPU per event of the relay's threads and of
 * the database's backends. It prints a Markdown table and writes it with a CSV of the same rows to
 * {@code benchmarks/results/}. Not part of the test run:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.SoakBenchmark \
 *     [--minutes 60] [--rate 1000] [--writers 4] [--mode mark|delete] [--relay polling|wal] \
 *     [--keep-minutes 1] [--sample-seconds 60] [--vacuum-interval 5s] [--rate max [--ramp-seconds 30]]
 * </pre>
 *
 * <p>{@code --rate max} (the burst): before the timed minutes, a ramp finds the highest rate this
 * machine sustains. It starts at {@code --ramp-from} (1,000 events/s) and raises the rate by a
 * quarter every {@code --ramp-seconds} (30) while the step was sustained: the writers wrote at
 * least 95% of the step's target and the relay ended the step with no more than a second's events
 * pending and no more than the step began with. The soak then runs its minutes at the last
 * sustained rate (the ramp's steps are printed with the report).
 *
 * <p>{@code --keep-minutes}: in mark mode, the retention job deletes processed rows older than this
 * ({@link OutboxAdmin#cleanupProcessed(Duration)}) after every sample. Each soak runs on a
 * PostgreSQL cluster of its own ({@link LogicalServer#cluster}, the newest installed version) with
 * the server's default settings, autovacuum on, so that soaks run side by side each measure their
 * own tables; the WAL relay runs there without its sweeper. {@code --vacuum-interval} is the
 * relay's {@code RelayConfig.vacuumInterval()}, polling or WAL.
 */
public final class SoakBenchmark {

  private static final Logger log = LoggerFactory.getLogger(SoakBenchmark.class);

  static final String DATABASE = "txoutbox_bench_soak";

  /** The columns of the table and the CSV, in order. */
  static final List<String> COLUMNS =
      List.of(
          "minute",
          "written",
          "published",
          "pending",
          "table+index MB",
          "index MB",
          "live tuples",
          "dead tuples",
          "autovacuums",
          "vacuums",
          "autoanalyzes",
          "claim of 100 ms",
          "cycle p50 ms",
          "cycle p99 ms",
          "commit→publish p50 ms",
          "commit→publish p99 ms",
          "relay CPU µs/event",
          "PostgreSQL CPU µs/event",
          "vacuum ms",
          "load (1 min)");

  private SoakBenchmark() {}

  public static void main(String[] args) {
    try {
      run(DrainBenchmark.parse(args));
    } catch (Exception | Error e) {
      log.error("soak failed", e);
      System.exit(1);
    }
    System.exit(0); // no pool or relay thread keeps a finished run alive
  }

  private static void run(Map<String, String> options) throws Exception {
    int minutes = positive(options, "minutes", 60);
    boolean burst = "max".equals(options.get("rate"));
    int rate = burst ? 0 : positive(options, "rate", 1_000);
    int rampFrom = positive(options, "ramp-from", 1_000);
    int rampSeconds = positive(options, "ramp-seconds", 30);
    int writers = positive(options, "writers", 4);
    int keepMinutes = positive(options, "keep-minutes", 1);
    int sampleSeconds = positive(options, "sample-seconds", 60);
    int vacuumSeconds =
        options.containsKey("vacuum-seconds") ? positive(options, "vacuum-seconds", 1) : 0;
    Duration vacuumInterval =
        options.containsKey("vacuum-interval")
            ? DurationText.parse(options.get("vacuum-interval"))
            : null;
    CompletionMode mode =
        switch (DrainBenchmark.listed(
                options.getOrDefault("mode", "mark"), "--mode", List.of("mark", "delete"))
            .get(0)) {
          case "delete" -> CompletionMode.DELETE;
          default -> CompletionMode.MARK_PROCESSED;
        };
    boolean wal =
        DrainBenchmark.listed(
                options.getOrDefault("relay", "polling"), "--relay", List.of("polling", "wal"))
            .get(0)
            .equals("wal");
    String load = MachineInfo.currentLoadAverage();
    Soak result;
    // A cluster of its own with PostgreSQL's default settings (autovacuum on, as a user's server
    // has it), whichever relay: a shared or test server may run without autovacuum.
    try (LogicalServer server = WalBenchmark.logicalServer(Map.of());
        BenchDatabase db = new BenchDatabase(server.jdbcUrl(DATABASE), WalBenchmark.USER, "")) {
      result =
          soak(
              db,
              wal ? server : null,
              mode,
              minutes,
              burst ? new Ramp(rampFrom, rampSeconds) : null,
              rate,
              writers,
              keepMinutes,
              sampleSeconds,
              vacuumSeconds,
              vacuumInterval);
    }
    List<List<String>> rows = result.rows();
    String what =
        String.format(
            "# Soak%n%n%s%d minutes at %,d events/s from %d writers, %s relay, %s%s; a sample every"
                + " %d s. %d cores, Java %s. Load average (1, 5, 15 min) at the start: %s; at the"
                + " end: %s.%n%n",
            result.ramp(),
            minutes,
            result.rate(),
            writers,
            wal ? "WAL" : "polling (in-process wake-up)",
            mode == CompletionMode.DELETE ? "delete" : "mark",
            mode == CompletionMode.DELETE
                ? ""
                : ", processed rows older than " + keepMinutes + " min deleted after each sample",
            sampleSeconds,
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"),
            load,
            MachineInfo.currentLoadAverage());
    String csv = csv(rows);
    DrainBenchmark.writeReport(
        "soak", what + ReportWriter.markdown(new ReportSection.Table(COLUMNS, rows)));
    Path file = Path.of("benchmarks", "results", "soak-" + stamp() + ".csv");
    Files.writeString(file, csv);
    System.out.println(csv);
    log.info("CSV written to {}", file);
  }

  /** The sampled rows, the rate they ran at, and the ramp's account of how it was found (or ""). */
  private record Soak(List<List<String>> rows, int rate, String ramp) {}

  /** The burst's search for the highest sustained rate: the first rate and each step's length. */
  private record Ramp(int from, int stepSeconds) {}

  /**
   * {@code server} is null for the polling relay, the WAL relay's server otherwise; {@code ramp}
   * null for a fixed {@code rate}.
   */
  private static Soak soak(
      BenchDatabase db,
      LogicalServer server,
      CompletionMode mode,
      int minutes,
      Ramp ramp,
      int rate,
      int writers,
      int keepMinutes,
      int sampleSeconds,
      int vacuumSeconds,
      Duration vacuumInterval)
      throws Exception {
    db.dsl().truncate(DSL.table(DSL.name(BenchDatabase.SCHEMA, "outbox_events"))).execute();
    Latencies latencies = new Latencies();
    CycleTimes cycles = new CycleTimes();
    OutboxRelay polling = null;
    WalRelay walRelay = null;
    Outbox.Builder outboxBuilder = Outbox.builder().schema(BenchDatabase.SCHEMA);
    if (server == null) {
      polling =
          OutboxRelay.builder()
              .dataSource(db.dataSource())
              .schema(BenchDatabase.SCHEMA)
              .publisher(latencies)
              .listener(cycles)
              .config(
                  RelayConfig.builder()
                      .name("soak")
                      .workers(1)
                      .batchSize(100)
                      .completionMode(mode)
                      .vacuumInterval(vacuumInterval)
                      .build())
              .build();
      outboxBuilder.afterCommit(polling::wakeUp);
    } else {
      walRelay =
          WalBenchmark.walRelay(
              server,
              DATABASE,
              db.dataSource(),
              BenchDatabase.SCHEMA,
              latencies,
              cycles,
              RelayConfig.builder()
                  .name("soak")
                  .batchSize(100)
                  .completionMode(mode)
                  .vacuumInterval(vacuumInterval)
                  .build(),
              1);
    }
    Outbox outbox = outboxBuilder.build();
    DefaultConfiguration writerConfig = new DefaultConfiguration();
    writerConfig.set(db.dataSource()).set(SQLDialect.POSTGRES).set(outbox.transactionListener());
    DSLContext writer = DSL.using(writerConfig);
    OutboxAdmin admin = OutboxAdmin.create(db.dataSource(), BenchDatabase.SCHEMA);
    List<List<String>> rows = new ArrayList<>();
    Writers load = new Writers(writer, outbox, latencies, writers);
    ScheduledExecutorService vacuums = Executors.newSingleThreadScheduledExecutor();
    if (polling != null) {
      polling.start();
    } else {
      walRelay.start();
    }
    String rampText = "";
    try {
      if (ramp != null) {
        StringBuilder steps = new StringBuilder();
        rate =
            ramp(
                db,
                load,
                latencies,
                ramp,
                steps,
                mode == CompletionMode.MARK_PROCESSED
                    ? () -> admin.cleanupProcessed(Duration.ofMinutes(keepMinutes))
                    : () -> 0L);
        rampText =
            String.format(
                "Burst: the ramp (a step of %d s each, sustained = at least 95%% of the target"
                    + " written, and at most a second's events pending at the step's end and no"
                    + " more than at its start) found %,d events/s:%n%n%s%n",
                ramp.stepSeconds(), rate, steps);
        latencies.drain();
        cycles.drain();
      }
      load.start(rate);
      LongAdder vacuumNanos = new LongAdder();
      if (vacuumSeconds > 0) {
        vacuums.scheduleWithFixedDelay(
            () -> vacuum(db, vacuumNanos), vacuumSeconds, vacuumSeconds, TimeUnit.SECONDS);
      }
      Sampler sampler = new Sampler(db, latencies, cycles, vacuumNanos);
      long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(minutes);
      // Sampling and the retention job take time, so the last interval may be a few seconds
      // short; a tail shorter than half an interval is not sampled (it read the table a moment
      // after the retention job's delete, labelled as one more minute).
      long halfInterval = TimeUnit.SECONDS.toNanos(sampleSeconds) / 2;
      for (int i = 1; end - System.nanoTime() > halfInterval; i++) {
        TimeUnit.SECONDS.sleep(
            Math.min(sampleSeconds, Math.max(1, (end - System.nanoTime()) / 1_000_000_000L)));
        List<String> row = sampler.sample(i * sampleSeconds / 60.0);
        rows.add(row);
        log.info("{}", String.join(" | ", row));
        if (mode == CompletionMode.MARK_PROCESSED) {
          admin.cleanupProcessed(Duration.ofMinutes(keepMinutes));
        }
      }
    } finally {
      load.stop();
      vacuums.shutdownNow();
      if (polling != null) {
        polling.close(Duration.ofSeconds(30));
      } else {
        walRelay.close(Duration.ofSeconds(30));
        WalBenchmark.dropSlot(db.dsl(), walRelay);
      }
    }
    if (latencies.failed.sum() > 0) {
      log.warn("{} writes failed", latencies.failed.sum());
    }
    return new Soak(rows, rate, rampText);
  }

  /**
   * Raises the writers' rate by a quarter per step from {@code ramp.from()} while each step is
   * sustained, writing a line per step to {@code steps} and running {@code retention} after each
   * (mark mode's cleanup, as the timed run does after every sample); returns the last sustained
   * rate (the first rate if none was).
   */
  private static int ramp(
      BenchDatabase db,
      Writers load,
      Latencies latencies,
      Ramp ramp,
      StringBuilder steps,
      java.util.function.LongSupplier retention)
      throws Exception {
    int sustained = 0;
    long pendingBefore = pending(db);
    for (int rate = ramp.from(); ; rate = rate + Math.max(1, rate / 4)) {
      latencies.written.sumThenReset();
      load.start(rate);
      TimeUnit.SECONDS.sleep(ramp.stepSeconds());
      long written = latencies.written.sumThenReset();
      long pending = pending(db);
      load.stop();
      retention.getAsLong(); // as after every sample of the timed run
      double writtenRate = written / (double) ramp.stepSeconds();
      boolean ok =
          writtenRate >= 0.95 * rate && pending <= rate && pending <= Math.max(pendingBefore, 100);
      steps.append(
          String.format(
              "- %,d events/s: written %,.0f/s, pending %,d at the end (%,d at the start): %s%n",
              rate, writtenRate, pending, pendingBefore, ok ? "sustained" : "not sustained"));
      log.info("ramp: {}", steps.substring(steps.lastIndexOf("- ")).strip());
      if (!ok) {
        // Let the relay catch up before the timed run starts.
        for (int i = 0; i < 120 && pending(db) > 100; i++) {
          TimeUnit.SECONDS.sleep(1);
        }
        return sustained == 0 ? ramp.from() : sustained;
      }
      sustained = rate;
      pendingBefore = pending;
    }
  }

  private static long pending(BenchDatabase db) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      return Sampler.single(
          c,
          "select count(*) from "
              + BenchDatabase.SCHEMA
              + ".outbox_events where processed_at is null and dead_lettered_at is null");
    }
  }

  /**
   * The writer threads: each commits one event per transaction at its share of the rate, started
   * and stopped as a whole (the ramp changes the rate by stopping and starting them).
   */
  private static final class Writers {
    private final DSLContext writer;
    private final Outbox outbox;
    private final Latencies latencies;
    private final int count;
    private ScheduledExecutorService threads;

    Writers(DSLContext writer, Outbox outbox, Latencies latencies, int count) {
      this.writer = writer;
      this.outbox = outbox;
      this.latencies = latencies;
      this.count = count;
    }

    void start(int rate) {
      threads = Executors.newScheduledThreadPool(count);
      long periodNanos = 1_000_000_000L * count / rate;
      for (int w = 0; w < count; w++) {
        threads.scheduleAtFixedRate(
            () -> latencies.write(writer, outbox),
            w * periodNanos / count,
            periodNanos,
            TimeUnit.NANOSECONDS);
      }
    }

    void stop() throws InterruptedException {
      if (threads != null) {
        threads.shutdown();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        threads = null;
      }
    }
  }

  /** One plain {@code VACUUM} of the outbox table, its time added to {@code nanos}. */
  private static void vacuum(BenchDatabase db, LongAdder nanos) {
    long start = System.nanoTime();
    try (Connection c = db.dataSource().getConnection();
        java.sql.Statement s = c.createStatement()) {
      s.execute("VACUUM " + BenchDatabase.SCHEMA + ".outbox_events");
    } catch (SQLException e) {
      log.warn("vacuum failed: {}", e.getMessage());
    }
    nanos.add(System.nanoTime() - start);
  }

  /**
   * Takes one row of figures: what the database says about the outbox now, and what the writers,
   * the publisher and the relay's threads did since the previous row. Not thread-safe.
   */
  private static final class Sampler {
    private final BenchDatabase db;
    private final Latencies latencies;
    private final CycleTimes cycles;
    private final LongAdder vacuumNanos;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private CpuMeter.Sample cpu;
    private long relayCpu;

    Sampler(BenchDatabase db, Latencies latencies, CycleTimes cycles, LongAdder vacuumNanos) {
      this.vacuumNanos = vacuumNanos;
      this.db = db;
      this.latencies = latencies;
      this.cycles = cycles;
      this.cpu = db.cpu().sample();
      this.relayCpu = relayThreadsCpu();
    }

    List<String> sample(double minute) throws SQLException {
      CpuMeter.Sample now = db.cpu().sample();
      long relayNow = relayThreadsCpu();
      long written = latencies.written.sumThenReset();
      long[] lat = latencies.drain();
      long[] cycle = cycles.drain();
      long published = lat.length;
      String table = BenchDatabase.SCHEMA + ".outbox_events";
      List<String> row = new ArrayList<>();
      row.add(String.format("%.1f", minute));
      row.add(String.valueOf(written));
      row.add(String.valueOf(published));
      try (Connection c = db.dataSource().getConnection()) {
        row.add(
            String.valueOf(
                single(
                    c,
                    "select count(*) from "
                        + table
                        + " where processed_at is null and dead_lettered_at is null")));
        row.add(mb(single(c, "select pg_total_relation_size('" + table + "')")));
        row.add(mb(single(c, "select pg_indexes_size('" + table + "')")));
        try (PreparedStatement s =
            c.prepareStatement(
                "select n_live_tup, n_dead_tup, autovacuum_count, vacuum_count, autoanalyze_count"
                    + " from pg_stat_user_tables where schemaname = ? and relname = ?")) {
          s.setString(1, BenchDatabase.SCHEMA);
          s.setString(2, "outbox_events");
          try (ResultSet rs = s.executeQuery()) {
            rs.next();
            for (int i = 1; i <= 5; i++) {
              row.add(String.valueOf(rs.getLong(i)));
            }
          }
        }
        row.add(Figures.two(claimMillis(c)));
      }
      row.add(Figures.two(Figures.percentile(cycle, 0.50) / 1e6));
      row.add(Figures.two(Figures.percentile(cycle, 0.99) / 1e6));
      row.add(Figures.two(Figures.percentile(lat, 0.50) / 1e6));
      row.add(Figures.two(Figures.percentile(lat, 0.99) / 1e6));
      row.add(Figures.one(published == 0 ? Double.NaN : (relayNow - relayCpu) / 1e3 / published));
      row.add(
          Figures.one(
              published == 0
                  ? Double.NaN
                  : (now.postgresNanos() - cpu.postgresNanos()) / 1e3 / published));
      row.add(Figures.one(vacuumNanos.sumThenReset() / 1e6));
      row.add(Figures.two(DrainBenchmark.oneMinuteLoad()));
      cpu = now;
      relayCpu = relayNow;
      return row;
    }

    /** One claim of 100 as the relay runs it, on the table as it is now; rolled back. */
    private static double claimMillis(Connection c) throws SQLException {
      c.setAutoCommit(false);
      try (PreparedStatement claim =
          c.prepareStatement(JdbcBaselineRelay.claimSql(BenchDatabase.SCHEMA))) {
        claim.setInt(1, 100);
        claim.setInt(2, 100);
        long start = System.nanoTime();
        try (ResultSet rs = claim.executeQuery()) {
          while (rs.next()) {
            rs.getString(6);
          }
        }
        return (System.nanoTime() - start) / 1e6;
      } finally {
        c.rollback();
        c.setAutoCommit(true);
      }
    }

    /** CPU nanoseconds of this JVM's relay threads ({@code outbox-…}) alive now. */
    private long relayThreadsCpu() {
      long total = 0;
      for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
        if (t != null && t.getThreadName().startsWith("outbox-")) {
          total += Math.max(0, threads.getThreadCpuTime(t.getThreadId()));
        }
      }
      return total;
    }

    private static long single(Connection c, String sql) throws SQLException {
      try (PreparedStatement s = c.prepareStatement(sql);
          ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }

    private static String mb(long bytes) {
      return Figures.one(bytes / 1024.0 / 1024.0);
    }
  }

  /**
   * The writers' side and the no-op publisher: each write notes its commit time by event id, each
   * publish takes it out again and keeps commit → publish for the current sample (an event
   * published before its writer noted the commit counts as 0). Thread-safe.
   */
  private static final class Latencies implements Publisher {
    private final Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
    private final Map<UUID, Boolean> publishedFirst = new ConcurrentHashMap<>();
    private final List<Long> sample = Collections.synchronizedList(new ArrayList<>());
    final LongAdder written = new LongAdder();
    final LongAdder failed = new LongAdder();

    void write(DSLContext writer, Outbox outbox) {
      try {
        UUID id = LatencyBenchmark.write(writer, outbox);
        long now = System.nanoTime();
        written.increment();
        committedAt.put(id, now);
        if (publishedFirst.remove(id) != null && committedAt.remove(id) != null) {
          sample.add(0L);
        }
      } catch (RuntimeException e) {
        if (failed.sum() == 0) {
          log.warn("a write failed (only the first is logged)", e);
        }
        failed.increment();
      }
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      long now = System.nanoTime();
      for (OutboxMessage m : messages) {
        Long committed = committedAt.remove(m.id());
        if (committed != null) {
          sample.add(Math.max(0, now - committed));
        } else {
          publishedFirst.put(m.id(), Boolean.TRUE);
        }
      }
      return Collections.nCopies(messages.size(), PublishResult.published());
    }

    /** The sorted latencies since the previous call, in nanoseconds. */
    long[] drain() {
      synchronized (sample) {
        long[] out = sample.stream().mapToLong(Long::longValue).sorted().toArray();
        sample.clear();
        return out;
      }
    }

    @Override
    public String name() {
      return "soak";
    }
  }

  /** The relay's cycle times (claim, publish, completion, commit) since the last call. */
  private static final class CycleTimes implements RelayListener {
    private final List<Long> nanos = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void batchCompleted(int claimed, int completed, int failed, Duration duration) {
      if (claimed > 0) {
        nanos.add(duration.toNanos());
      }
    }

    long[] drain() {
      synchronized (nanos) {
        long[] out = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        nanos.clear();
        return out;
      }
    }
  }

  /** The rows as CSV, with {@link #COLUMNS} as its header. */
  static String csv(List<List<String>> rows) {
    StringBuilder out = new StringBuilder(String.join(",", COLUMNS)).append('\n');
    for (List<String> row : rows) {
      out.append(String.join(",", row.stream().map(c -> c.replace(",", "")).toList())).append('\n');
    }
    return out.toString();
  }

  /**
   * The option {@code name} as a positive whole number, {@code defaultValue} if it is absent.
   *
   * @throws IllegalArgumentException naming the option if it is not one
   */
  static int positive(Map<String, String> options, String name, int defaultValue) {
    String text = options.getOrDefault(name, String.valueOf(defaultValue));
    int value;
    try {
      value = Integer.parseInt(text);
    } catch (NumberFormatException e) {
      value = 0;
    }
    if (value < 1) {
      throw new IllegalArgumentException(
          "--" + name + " must be a positive whole number but was '" + text + "'");
    }
    return value;
  }

  private static String stamp() {
    return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
  }
}
