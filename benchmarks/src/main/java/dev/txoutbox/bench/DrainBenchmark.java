package dev.txoutbox.bench;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.PublishTracer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains N pending events again and again, side by side in one process: the database's ceiling
 * (claim and completion as one statement), a plain JDBC relay (the reference), the seed article's
 * per-row relay, the txoutbox relay with a no-op publisher (unordered, and ordered per aggregate
 * over 1,000, 10 and 1 aggregates), and the relay publishing to Kafka, RabbitMQ and SQS
 * (ElasticMQ). Rounds interleave every case; the table gives the median rate, its ratio to the
 * reference of the same run and CPU per event. {@link Report} runs it as the report's drain
 * section.
 *
 * <pre>
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.DrainBenchmark \
 *     [--events 100000] [--rounds 3] [--targets ceiling,jdbc,per-row,noop,ordered,kafka,rabbit,sqs] \
 *     [--shapes 1x100,2x100,1x500,2x500]
 * </pre>
 *
 * <p>{@code --shapes} picks the workers × batch of the no-op and baseline cases (default all four);
 * {@code --targets jdbc,noop --shapes 1x100,2x500 --rounds 5} measures the relay against the plain
 * JDBC relay in the shapes issue 33 must not regress.
 *
 * <p>Database from {@code OUTBOX_BENCH_JDBC_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/txoutbox_bench}, user {@code postgres}); RabbitMQ from {@code
 * OUTBOX_BENCH_AMQP_URI} (default the local service).
 */
public final class DrainBenchmark {

  private static final Logger log = LoggerFactory.getLogger(DrainBenchmark.class);

  /** Aggregates the events of a case are spread over unless it says otherwise. */
  static final int DEFAULT_AGGREGATES = 1_000;

  /** The targets measured by hand-written JDBC, without the relay. */
  static final List<String> JDBC_TARGETS = List.of("ceiling", "jdbc", "per-row");

  /** The targets with a real broker. */
  static final List<String> BROKER_TARGETS = List.of("kafka", "rabbit", "sqs");

  /**
   * One measured configuration. {@code target} is one of {@link #TARGETS} ({@code ordered} cases
   * have target {@code noop} and {@link Ordering#PER_AGGREGATE}).
   */
  record Case(
      String target,
      int workers,
      int batchSize,
      CompletionMode mode,
      Ordering ordering,
      int aggregates) {
    Case(String target, int workers, int batchSize, CompletionMode mode) {
      this(target, workers, batchSize, mode, Ordering.NONE, DEFAULT_AGGREGATES);
    }

    /** What is measured, e.g. {@code txoutbox relay, no-op publisher}. */
    String what() {
      String name =
          switch (target) {
            case "ceiling" -> "database ceiling (claim + complete as one statement)";
            case "jdbc" -> "plain JDBC relay";
            case "per-row" -> "per-row relay (one UPDATE per event)";
            case "noop" -> "txoutbox, no-op publisher";
            case "kafka" -> "txoutbox, Kafka (KRaft, acks=all)";
            case "rabbit" -> "txoutbox, RabbitMQ (confirms)";
            case "sqs" -> "txoutbox, SQS (ElasticMQ)";
            default -> throw new IllegalArgumentException("unknown target " + target);
          };
      return ordering == Ordering.NONE
          ? name
          : String.format(
              "%s, ordered per aggregate (%,d aggregate%s)",
              name, aggregates, aggregates == 1 ? "" : "s");
    }

    /** Workers × batch and the completion, e.g. {@code 2 × 500, mark}. */
    String shape() {
      return workers
          + " × "
          + batchSize
          + ", "
          + (mode == CompletionMode.DELETE ? "delete" : "mark");
    }

    String label() {
      return what() + " | " + shape();
    }

    /** A chart's label, e.g. {@code txoutbox, ordered (10 agg.) 2×500 mark}. */
    String shortLabel() {
      String name =
          switch (target) {
            case "ceiling" -> "ceiling";
            case "jdbc" -> "plain JDBC";
            case "noop" -> "txoutbox";
            default -> target;
          };
      String ordered =
          ordering == Ordering.NONE ? "" : String.format(", ordered (%d agg.)", aggregates);
      return name
          + ordered
          + " "
          + workers
          + "×"
          + batchSize
          + (mode == CompletionMode.DELETE ? " delete" : " mark");
    }

    /** The same shape measured on another target, unordered. */
    Case on(String other) {
      return new Case(other, workers, batchSize, mode);
    }
  }

  /** One run of a case: events per second, and CPU per event of the JVM and of PostgreSQL. */
  record Measurement(double rate, double jvmMicros, double postgresMicros) {}

  /**
   * The targets: {@code ordered} is the no-op publisher ordered per aggregate over 1,000, 10 and 1
   * aggregates, 2 workers of 500.
   */
  static final List<String> TARGETS =
      List.of("ceiling", "jdbc", "per-row", "noop", "ordered", "kafka", "rabbit", "sqs");

  /** Workers × batch of the command line's no-op and baseline cases. */
  static final int[][] SHAPES = {{1, 100}, {2, 100}, {1, 500}, {2, 500}};

  private DrainBenchmark() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception | Error e) {
      log.error("benchmark failed", e);
      System.exit(1); // broker client threads must not keep a failed run alive
    }
    System.exit(0); // nor a finished one
  }

  private static void run(String[] args) throws Exception {
    Map<String, String> options = parse(args);
    int events = Integer.parseInt(options.getOrDefault("events", "100000"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    List<String> targets =
        List.of(options.getOrDefault("targets", "jdbc,noop,kafka,rabbit,sqs").split(","));
    for (String target : targets) {
      if (!TARGETS.contains(target)) {
        throw new IllegalArgumentException(
            "--targets takes " + String.join(", ", TARGETS) + ", but got '" + target + "'");
      }
    }
    List<Case> cases = new ArrayList<>();
    int[][] shapes = options.containsKey("shapes") ? shapes(options.get("shapes")) : SHAPES;
    for (String target : targets) {
      cases.addAll(cases(target, shapes));
    }
    try (BenchDatabase db = BenchDatabase.fromEnvironment();
        Targets started = Targets.start(targets)) {
      Map<Case, List<Measurement>> runs = measure(db, started, cases, c -> events, rounds, 0);
      writeReport("drain", report(runs, events, rounds, db.serverVersion()));
    }
  }

  /**
   * The workers × batch shapes of {@code text}, such as {@code 1x100,2x500}.
   *
   * @throws IllegalArgumentException naming {@code --shapes} if a shape is not {@code <n>x<n>}
   */
  static int[][] shapes(String text) {
    String[] items = text.split(",");
    int[][] shapes = new int[items.length][];
    for (int i = 0; i < items.length; i++) {
      String[] wb = items[i].trim().split("x");
      try {
        shapes[i] = new int[] {Integer.parseInt(wb[0]), Integer.parseInt(wb[1])};
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "--shapes takes workers x batch such as 1x100,2x500, but got '" + items[i] + "'");
      }
      if (wb.length != 2 || shapes[i][0] < 1 || shapes[i][1] < 1) {
        throw new IllegalArgumentException(
            "--shapes takes positive workers x batch such as 1x100,2x500, but got '"
                + items[i]
                + "'");
      }
    }
    return shapes;
  }

  /** The cases of {@code target} ({@link #TARGETS}) for the workers × batch {@code shapes}. */
  static List<Case> cases(String target, int[][] shapes) {
    List<Case> cases = new ArrayList<>();
    switch (target) {
      case "ordered" -> {
        for (int aggregates : new int[] {1_000, 10, 1}) {
          cases.add(
              new Case(
                  "noop",
                  2,
                  500,
                  CompletionMode.MARK_PROCESSED,
                  Ordering.PER_AGGREGATE,
                  aggregates));
        }
      }
      case "per-row" -> {
        for (int[] wb : shapes) {
          if (wb[1] == 100) {
            cases.add(new Case(target, wb[0], wb[1], CompletionMode.MARK_PROCESSED));
          }
        }
      }
      case "ceiling", "jdbc", "noop" -> {
        for (CompletionMode mode : CompletionMode.values()) {
          for (int[] wb : shapes) {
            cases.add(new Case(target, wb[0], wb[1], mode));
          }
        }
      }
      default -> {
        cases.add(new Case(target, 1, 100, CompletionMode.MARK_PROCESSED));
        cases.add(new Case(target, 2, 500, CompletionMode.MARK_PROCESSED));
      }
    }
    return cases;
  }

  /**
   * Measures every case in {@code rounds} interleaved rounds, each run on a freshly seeded outbox
   * of {@code events.applyAsInt(case)} pending events, after a warm-up round of every case with
   * {@code warmupEvents} (none if 0) that is not counted.
   *
   * @param targets the started targets of the relay cases (JDBC cases need none)
   * @return the runs of each case, in the order of {@code cases}
   * @throws IllegalStateException if a run did not complete every event
   */
  static Map<Case, List<Measurement>> measure(
      BenchDatabase db,
      Targets targets,
      List<Case> cases,
      java.util.function.ToIntFunction<Case> events,
      int rounds,
      int warmupEvents)
      throws Exception {
    Map<Case, List<Measurement>> runs = new LinkedHashMap<>();
    for (int round = warmupEvents > 0 ? 0 : 1; round <= rounds; round++) {
      log.info(round == 0 ? "drain warm-up" : "drain round {} of {}", round, rounds);
      for (Case c : cases) {
        int n = round == 0 ? warmupEvents : events.applyAsInt(c);
        db.seed(n, c.aggregates());
        CpuMeter.Sample cpu = db.cpu().sample();
        long start = System.nanoTime();
        long drained;
        long nanos;
        if (JDBC_TARGETS.contains(c.target())) {
          JdbcBaselineRelay.Cycle cycle =
              switch (c.target()) {
                case "ceiling" -> JdbcBaselineRelay.Cycle.CEILING;
                case "per-row" -> JdbcBaselineRelay.Cycle.PER_ROW;
                default -> JdbcBaselineRelay.Cycle.BATCH;
              };
          drained =
              JdbcBaselineRelay.drain(
                  db.dataSource(),
                  cycle,
                  c.workers(),
                  c.batchSize(),
                  c.mode() == CompletionMode.DELETE);
          nanos = System.nanoTime() - start;
        } else {
          Target target = targets.get(c.target());
          // From relay.start() to the last commit: not the publisher's creation nor the close.
          nanos = relayDrain(db, target, c, n, PublishTracer.none());
          target.afterRun();
          drained = n;
        }
        CpuMeter.Sample spent = db.cpu().sample().minus(cpu);
        if (round > 0) {
          record(runs, c, drained, n, nanos, spent);
        }
      }
    }
    return runs;
  }

  /** The started targets of a run by key; closes them all. */
  static final class Targets implements AutoCloseable {
    private final Map<String, Target> started = new LinkedHashMap<>();

    /** Starts the relay targets among {@code keys}; JDBC targets need nothing. */
    static Targets start(List<String> keys) throws Exception {
      Targets t = new Targets();
      try {
        for (String key : keys) {
          t.add(key);
        }
      } catch (Exception | Error e) {
        t.close();
        throw e;
      }
      return t;
    }

    /** Starts the target {@code key} (a broker, or the no-op publisher). */
    void add(String key) throws Exception {
      String amqp =
          System.getenv()
              .getOrDefault("OUTBOX_BENCH_AMQP_URI", "amqp://guest:guest@127.0.0.1:5672");
      switch (key) {
        case "noop", "ordered" -> started.putIfAbsent("noop", new NoopTarget());
        case "kafka" -> started.put(key, new KafkaTarget());
        case "rabbit" -> started.put(key, new RabbitTarget(amqp));
        case "sqs" -> started.put(key, new SqsTarget());
        default -> {}
      }
    }

    Target get(String key) {
      Target t = started.get(key);
      if (t == null) {
        throw new IllegalStateException("target " + key + " was not started");
      }
      return t;
    }

    @Override
    public void close() {
      started.values().forEach(Target::close);
    }
  }

  /**
   * Starts a relay tracing its publishes with {@code tracer} on the seeded outbox and returns the
   * nanoseconds from {@code relay.start()} until the batch holding the last event committed ({@link
   * DrainClock}).
   */
  static long relayDrain(BenchDatabase db, Target target, Case c, int events, PublishTracer tracer)
      throws InterruptedException {
    DrainClock clock = new DrainClock(events);
    try (Publisher publisher = target.publisher()) {
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(db.dataSource())
              .schema(BenchDatabase.SCHEMA)
              .publisher(publisher)
              .listener(clock)
              .publishTracer(tracer)
              .config(
                  RelayConfig.builder()
                      .name("bench")
                      .workers(c.workers())
                      .batchSize(c.batchSize())
                      .completionMode(c.mode())
                      .ordering(c.ordering())
                      .minPollInterval(Duration.ofMillis(5))
                      .maxPollInterval(Duration.ofMillis(50))
                      .build())
              .build();
      clock.start();
      relay.start();
      boolean finished = clock.await(Duration.ofMinutes(10));
      relay.close(Duration.ofSeconds(30));
      return clock.nanos(c.label(), finished);
    }
  }

  /**
   * A relay's drain clock, as its listener: from {@link #start()} until the batch holding the last
   * of {@code events} committed. The clock stops in {@code batchCompleted}, which a relay calls
   * after the batch's transaction committed, as the baseline's clock includes its commits; {@code
   * published} comes before the completion statement and the commit, and stopping there flattered
   * the relay by one batch's completion (logged as "to the last published"). Thread-safe.
   */
  static final class DrainClock implements RelayListener {
    private final int events;
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicLong committed = new AtomicLong();
    private final AtomicInteger published = new AtomicInteger();
    private final AtomicLong lastPublishedAt = new AtomicLong();
    private final AtomicLong doneAt = new AtomicLong();
    private volatile long start;

    DrainClock(int events) {
      this.events = events;
    }

    @Override
    public void published(OutboxMessage message) {
      if (published.incrementAndGet() == events) {
        lastPublishedAt.set(System.nanoTime());
      }
    }

    @Override
    public void batchCompleted(int claimed, int completed, int failed, Duration duration) {
      if (committed.addAndGet(completed) >= events && doneAt.compareAndSet(0, System.nanoTime())) {
        done.countDown();
      }
    }

    void start() {
      start = System.nanoTime();
    }

    /** Whether every event was completed within {@code timeout}. */
    boolean await(Duration timeout) throws InterruptedException {
      return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * The drain's nanoseconds, logged with both rates.
     *
     * @throws IllegalStateException if it did not {@code finish}
     */
    long nanos(String label, boolean finished) {
      if (!finished) {
        throw new IllegalStateException(
            label + ": " + (events - committed.get()) + " events not completed in time");
      }
      long nanos = doneAt.get() - start;
      log.info(
          "{}: {} events/s to the last commit, {} events/s to the last published",
          label,
          Math.round(events / (nanos / 1e9)),
          Math.round(events / ((lastPublishedAt.get() - start) / 1e9)));
      return nanos;
    }
  }

  private static void record(
      Map<Case, List<Measurement>> rates,
      Case c,
      long drained,
      int expected,
      long nanos,
      CpuMeter.Sample cpu) {
    if (drained != expected) {
      throw new IllegalStateException(c.label() + " drained " + drained + " of " + expected);
    }
    rates
        .computeIfAbsent(c, k -> new ArrayList<>())
        .add(measurement(c.label(), drained, nanos, cpu));
  }

  /** The figures of a drain of {@code drained} events in {@code nanos}, logged. */
  static Measurement measurement(String label, long drained, long nanos, CpuMeter.Sample cpu) {
    Measurement m =
        new Measurement(
            drained / (nanos / 1e9),
            cpu.jvmNanos() / 1e3 / drained,
            cpu.postgresNanos() / 1e3 / drained);
    log.info(
        "{}: {} events/s, CPU per event {} µs JVM / {} µs PostgreSQL",
        label,
        Math.round(m.rate()),
        String.format("%.1f", m.jvmMicros()),
        String.format("%.1f", m.postgresMicros()));
    return m;
  }

  /** The command line's Markdown table: each case with its reference of the same run. */
  static String report(
      Map<Case, List<Measurement>> runs, int events, int rounds, String pgVersion) {
    StringBuilder out = new StringBuilder();
    out.append("# Drain benchmark\n\n");
    out.append(
        String.format(
            "Draining %,d pending events, median of %d interleaved rounds, %d cores, Java %s,"
                + " PostgreSQL %s.%n%n",
            events,
            rounds,
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"),
            pgVersion));
    out.append(ReportWriter.markdown(table(runs)));
    return out.toString();
  }

  /**
   * Every case's median events/s, its ratio to its reference in the same runs (the plain JDBC relay
   * of the same shape; for ordered cases the unordered no-op relay; for a broker the no-op relay)
   * and CPU µs per event.
   */
  static ReportSection.Table table(Map<Case, List<Measurement>> runs) {
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Case, List<Measurement>> e : runs.entrySet()) {
      Case c = e.getKey();
      Case reference = reference(c);
      double rate = Figures.median(e.getValue(), Measurement::rate);
      List<Measurement> ref = reference == null ? null : runs.get(reference);
      rows.add(
          List.of(
              c.what(),
              c.shape(),
              Figures.rate(rate),
              String.format(
                  "%s–%s",
                  Figures.rate(
                      e.getValue().stream().mapToDouble(Measurement::rate).min().orElse(0)),
                  Figures.rate(
                      e.getValue().stream().mapToDouble(Measurement::rate).max().orElse(0))),
              ref == null
                  ? ""
                  : Figures.ratio(rate, Figures.median(ref, Measurement::rate))
                      + " of "
                      + reference.what(),
              Figures.one(Figures.median(e.getValue(), Measurement::jvmMicros)),
              Figures.one(Figures.median(e.getValue(), Measurement::postgresMicros))));
    }
    return new ReportSection.Table(
        List.of(
            "case",
            "workers × batch",
            "events/s (median)",
            "min–max",
            "vs reference, same run",
            "JVM CPU µs/event",
            "PostgreSQL CPU µs/event"),
        rows);
  }

  /** The case {@code c} is compared with, or null for the plain JDBC relay itself. */
  static Case reference(Case c) {
    if (c.target().equals("jdbc")) {
      return null;
    }
    if (c.ordering() != Ordering.NONE || BROKER_TARGETS.contains(c.target())) {
      return c.on("noop");
    }
    return c.on("jdbc");
  }

  /** Prints {@code report} and writes it to {@code benchmarks/results/<kind>-<time>.md}. */
  static void writeReport(String kind, String report) throws java.io.IOException {
    System.out.println(report);
    Path out = Path.of("benchmarks", "results");
    Files.createDirectories(out);
    Path file =
        out.resolve(
            kind
                + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + ".md");
    Files.writeString(file, report);
    log.info("report written to {}", file);
  }

  static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "usage: DrainBenchmark [--events N] [--rounds N] [--targets "
                + String.join(",", TARGETS)
                + "] [--shapes 1x100,2x500]");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
