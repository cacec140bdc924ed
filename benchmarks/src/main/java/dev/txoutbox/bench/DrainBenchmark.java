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
import java.util.Arrays;
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
 * Drains N pending events again and again, side by side: the database's ceiling (claim and
 * completion as one statement), a plain JDBC relay (the reference), the same plain relay reading
 * every column of each claimed row into a message as a relay with a publisher must ({@code
 * jdbc-message}, not in the default targets), the seed article's per-row relay, the txoutbox relay
 * with a no-op publisher (unordered, and ordered per aggregate over 1,000, 10 and 1 aggregates),
 * and the relay publishing to Kafka, RabbitMQ and SQS (ElasticMQ). Rounds interleave every case;
 * the table gives the median rate, its ratio to the reference of the same run, CPU per event and
 * the machine's load. {@link Report} runs it as the report's drain section.
 *
 * <p>Each case runs in one of two JVMs ({@code --jvm}, both by default):
 *
 * <ul>
 *   <li>{@code fresh}: a new JVM per run, as a restarted relay has (class loading and JIT
 *       compilation in its CPU): this JVM seeds the outbox, then a child JVM opens a pool, starts
 *       the relay (or the plain JDBC relay), drains and reports; its CPU is counted from just
 *       before the relay starts. Not for the broker targets, which run warm only.
 *   <li>{@code warm}: in this long-lived JVM, after an uncounted warm-up run of every warm case
 *       with {@code --warmup-events} (default: {@code --events}; 0 for none) in batches of {@code
 *       --warmup-batch} (default {@value #WARMUP_BATCH}; 0 for none) and then in its own, so that
 *       the per-batch code is compiled as in a relay that has run a while ({@link #WARMUP_BATCH}).
 * </ul>
 *
 * A second table puts each shape's fresh and warm figures side by side, each with its ratio to the
 * plain JDBC relay in the same kind of JVM.
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.DrainBenchmark \
 *     [--events 100000] [--rounds 3] [--jvm fresh,warm] [--warmup-events N] [--warmup-batch 10] \
 *     [--targets ceiling,jdbc,jdbc-message,per-row,noop,ordered,kafka,rabbit,sqs] \
 *     [--shapes 1x100:mark,2x100:mark,1x500:mark,2x500:mark,2x500:delete] \
 *     [--child-jvm-options '-XX:AOTCache=relay.aot']
 * </pre>
 *
 * <p>{@code --shapes} picks the workers × batch of the no-op and baseline cases, each in both
 * completion modes unless it names one ({@code 2x500:delete}); the default is {@link
 * #DEFAULT_SHAPES}. {@code --targets} defaults to {@code jdbc,noop}.
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
  static final List<String> JDBC_TARGETS = List.of("ceiling", "jdbc", "jdbc-message", "per-row");

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
      int aggregates,
      boolean fresh) {
    Case(String target, int workers, int batchSize, CompletionMode mode) {
      this(target, workers, batchSize, mode, Ordering.NONE, DEFAULT_AGGREGATES);
    }

    /** A case run warm, in the long-lived JVM. */
    Case(
        String target,
        int workers,
        int batchSize,
        CompletionMode mode,
        Ordering ordering,
        int aggregates) {
      this(target, workers, batchSize, mode, ordering, aggregates, false);
    }

    /**
     * The case of this one's first warm-up: a relay or plain JDBC case in batches of {@code batch}
     * (this case itself if 0, or for a broker, whose round trips per batch would make it slow).
     */
    Case warmingUp(int batch) {
      return batch <= 0 || BROKER_TARGETS.contains(target)
          ? this
          : new Case(target, workers, batch, mode, ordering, aggregates, fresh);
    }

    /** This case in a new JVM per run ({@code true}) or in the long-lived, warmed one. */
    Case inFreshJvm(boolean inFresh) {
      return new Case(target, workers, batchSize, mode, ordering, aggregates, inFresh);
    }

    /** {@code fresh JVM} or {@code warm JVM}. */
    String jvm() {
      return fresh ? "fresh JVM" : "warm JVM";
    }

    /** What is measured, e.g. {@code txoutbox relay, no-op publisher}. */
    String what() {
      String name =
          switch (target) {
            case "ceiling" -> "database ceiling (claim + complete as one statement)";
            case "jdbc" -> "plain JDBC relay";
            case "jdbc-message" -> "plain JDBC relay, reading each event's message";
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
      return what() + " | " + shape() + " | " + jvm();
    }

    /** A chart's label, e.g. {@code txoutbox, ordered (10 agg.) 2×500 mark}. */
    String shortLabel() {
      String name =
          switch (target) {
            case "ceiling" -> "ceiling";
            case "jdbc" -> "plain JDBC";
            case "jdbc-message" -> "plain JDBC, message";
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
          + (mode == CompletionMode.DELETE ? " delete" : " mark")
          + (fresh ? " fresh" : "");
    }

    /** The same shape measured on another target, unordered, in the same kind of JVM. */
    Case on(String other) {
      return new Case(other, workers, batchSize, mode).inFreshJvm(fresh);
    }

    /** The command line of a child JVM running this case ({@link #fromOptions}). */
    List<String> options() {
      return List.of(
          "--target",
          target,
          "--workers",
          String.valueOf(workers),
          "--batch",
          String.valueOf(batchSize),
          "--mode",
          mode.name(),
          "--ordering",
          ordering.name(),
          "--aggregates",
          String.valueOf(aggregates));
    }

    /** The case a child JVM was given by {@link #options()}. */
    static Case fromOptions(Map<String, String> options) {
      return new Case(
          options.get("target"),
          Integer.parseInt(options.get("workers")),
          Integer.parseInt(options.get("batch")),
          CompletionMode.valueOf(options.get("mode")),
          Ordering.valueOf(options.get("ordering")),
          Integer.parseInt(options.get("aggregates")),
          true);
    }
  }

  /**
   * One run of a case: events per second, CPU per event of the JVM and of PostgreSQL, and the
   * machine's 1-minute load average when it ended (NaN where unknown).
   */
  record Measurement(
      double rate, double jvmMicros, double postgresMicros, double load, double jitMicros) {
    Measurement(double rate, double jvmMicros, double postgresMicros, double load) {
      this(rate, jvmMicros, postgresMicros, load, Double.NaN);
    }

    Measurement(double rate, double jvmMicros, double postgresMicros) {
      this(rate, jvmMicros, postgresMicros, Double.NaN);
    }

    /**
     * JVM CPU per event without the JIT compiler threads' (the application's threads, GC and the
     * JVM's own), NaN where the compiler's share is unknown.
     */
    double withoutJitMicros() {
      return jvmMicros - jitMicros;
    }

    /** This measurement with the JIT compiler threads' share of its JVM CPU. */
    Measurement withJit(double micros) {
      return new Measurement(rate, jvmMicros, postgresMicros, load, micros);
    }
  }

  /**
   * Workers × batch and the completion modes of one shape of {@code --shapes}: {@code 2x500} in
   * both modes, {@code 2x500:delete} in one.
   */
  record Shape(int workers, int batchSize, List<CompletionMode> modes) {
    Shape {
      modes = List.copyOf(modes);
    }

    /** Every shape of {@code shapes} (workers, batch) in both completion modes. */
    static List<Shape> bothModes(int[][] shapes) {
      List<Shape> out = new ArrayList<>();
      for (int[] wb : shapes) {
        out.add(new Shape(wb[0], wb[1], List.of(CompletionMode.values())));
      }
      return out;
    }
  }

  /**
   * The targets: {@code ordered} is the no-op publisher ordered per aggregate over 1,000, 10 and 1
   * aggregates, 2 workers of 500.
   */
  static final List<String> TARGETS =
      List.of(
          "ceiling",
          "jdbc",
          "jdbc-message",
          "per-row",
          "noop",
          "ordered",
          "kafka",
          "rabbit",
          "sqs");

  /** The command line's no-op and baseline cases: marking in four shapes, deleting in one. */
  static final String DEFAULT_SHAPES = "1x100:mark,2x100:mark,1x500:mark,2x500:mark,2x500:delete";

  /**
   * The batch size of the warm-up runs ({@code --warmup-batch}): the JIT compiles a method to its
   * top tier after thousands of calls, and the relay's per-batch code (claim, completion,
   * transaction) is called once per batch, so a warm-up in the measured batch of 100 or 500 leaves
   * it half compiled (its JIT compiler threads still busy in the measured rounds). Batches of 10
   * run it ten to fifty times as often for the same events, as a relay that has run for a while; a
   * second warm-up in the case's own batch size follows, so that the compiled code has seen it.
   */
  static final int WARMUP_BATCH = 10;

  /** The kinds of JVM a case runs in ({@code --jvm}). */
  static final List<String> JVMS = List.of("fresh", "warm");

  /**
   * Options of every fresh case's JVM ({@code --child-jvm-options}, split at spaces), such as a
   * newer runtime's ahead-of-time cache; none by default. Set once, before the runs.
   */
  private static volatile List<String> childJvmOptions = List.of();

  private DrainBenchmark() {}

  public static void main(String[] args) {
    try {
      ChildJvm.main(args, DrainBenchmark::run, DrainBenchmark::child);
    } catch (Exception | Error e) {
      log.error("benchmark failed", e);
      System.exit(1); // broker client threads must not keep a failed run alive
    }
  }

  private static void run(Map<String, String> options) throws Exception {
    int events = Integer.parseInt(options.getOrDefault("events", "100000"));
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup-events", String.valueOf(events)));
    int warmupBatch =
        Integer.parseInt(options.getOrDefault("warmup-batch", String.valueOf(WARMUP_BATCH)));
    List<String> targets =
        listed(options.getOrDefault("targets", "jdbc,noop"), "--targets", TARGETS);
    List<String> jvms = listed(options.getOrDefault("jvm", "fresh,warm"), "--jvm", JVMS);
    List<Shape> shapes = shapes(options.getOrDefault("shapes", DEFAULT_SHAPES));
    String jvmOptions = options.getOrDefault("child-jvm-options", "").strip();
    childJvmOptions = jvmOptions.isEmpty() ? List.of() : List.of(jvmOptions.split(" +"));
    List<Case> cases = new ArrayList<>();
    for (String jvm : jvms) {
      for (String target : targets) {
        if (jvm.equals("fresh") && BROKER_TARGETS.contains(target)) {
          log.warn("{} runs warm only: a broker is not started per JVM", target);
          continue;
        }
        cases.addAll(cases(target, shapes, jvm.equals("fresh")));
      }
    }
    String loadAtStart = MachineInfo.currentLoadAverage();
    try (BenchDatabase db = BenchDatabase.fromEnvironment();
        Targets started = Targets.start(targets)) {
      Map<Case, List<Measurement>> runs =
          measure(db, started, cases, c -> events, rounds, warmup, warmupBatch);
      writeReport(
          "drain",
          report(
              runs,
              events,
              rounds,
              warmup,
              warmupBatch,
              db.serverVersion(),
              loadAtStart + "; at the end " + MachineInfo.currentLoadAverage()));
    }
  }

  /**
   * The comma-separated values of {@code option}.
   *
   * @throws IllegalArgumentException naming the option if a value is not one of {@code allowed}
   */
  static List<String> listed(String text, String option, List<String> allowed) {
    List<String> values = List.of(text.split(","));
    for (String v : values) {
      if (!allowed.contains(v)) {
        throw new IllegalArgumentException(
            option + " takes " + String.join(", ", allowed) + ", but got '" + v + "'");
      }
    }
    return values;
  }

  /**
   * The shapes of {@code text}, such as {@code 1x100,2x500:delete}: workers x batch, in both
   * completion modes unless a {@code :mark} or {@code :delete} names one.
   *
   * @throws IllegalArgumentException naming {@code --shapes} if a shape is not {@code
   *     <n>x<n>[:mark|:delete]}
   */
  static List<Shape> shapes(String text) {
    List<Shape> shapes = new ArrayList<>();
    for (String item : text.split(",")) {
      String[] shapeAndMode = item.trim().split(":", -1);
      String[] wb = shapeAndMode[0].split("x", -1);
      int workers;
      int batch;
      try {
        workers = Integer.parseInt(wb[0]);
        batch = Integer.parseInt(wb[1]);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            "--shapes takes workers x batch such as 1x100,2x500:delete, but got '" + item + "'");
      }
      if (wb.length != 2 || workers < 1 || batch < 1 || shapeAndMode.length > 2) {
        throw new IllegalArgumentException(
            "--shapes takes positive workers x batch such as 1x100,2x500:delete, but got '"
                + item
                + "'");
      }
      List<CompletionMode> modes =
          shapeAndMode.length == 1
              ? List.of(CompletionMode.values())
              : switch (shapeAndMode[1]) {
                case "mark" -> List.of(CompletionMode.MARK_PROCESSED);
                case "delete" -> List.of(CompletionMode.DELETE);
                default ->
                    throw new IllegalArgumentException(
                        "--shapes takes :mark or :delete after a shape, but got '" + item + "'");
              };
      shapes.add(new Shape(workers, batch, modes));
    }
    return shapes;
  }

  /**
   * The cases of {@code target} ({@link #TARGETS}) for the workers × batch {@code shapes}, each in
   * both completion modes, run warm.
   */
  static List<Case> cases(String target, int[][] shapes) {
    return cases(target, Shape.bothModes(shapes), false);
  }

  /** The cases of {@code target} for {@code shapes}, in a fresh JVM per run or warm. */
  static List<Case> cases(String target, List<Shape> shapes, boolean fresh) {
    return casesWarm(target, shapes).stream().map(c -> c.inFreshJvm(fresh)).toList();
  }

  private static List<Case> casesWarm(String target, List<Shape> shapes) {
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
        for (Shape shape : shapes) {
          if (shape.batchSize() == 100 && shape.modes().contains(CompletionMode.MARK_PROCESSED)) {
            cases.add(
                new Case(
                    target, shape.workers(), shape.batchSize(), CompletionMode.MARK_PROCESSED));
          }
        }
      }
      case "ceiling", "jdbc", "jdbc-message", "noop" -> {
        for (CompletionMode mode : CompletionMode.values()) {
          for (Shape shape : shapes) {
            if (shape.modes().contains(mode)) {
              cases.add(new Case(target, shape.workers(), shape.batchSize(), mode));
            }
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
   * of {@code events.applyAsInt(case)} pending events, after uncounted warm-up rounds of every warm
   * case with {@code warmupEvents} (none if 0): a relay's or plain JDBC case first in batches of
   * {@code warmupBatch} (no such round if 0; see {@link #WARMUP_BATCH}), then in its own. A fresh
   * case runs in a child JVM ({@link #child}) after this JVM seeded its outbox.
   *
   * @param targets the started targets of the warm relay cases (JDBC and fresh cases need none)
   * @return the runs of each case, in the order of {@code cases}
   * @throws IllegalStateException if a run did not complete every event
   */
  static Map<Case, List<Measurement>> measure(
      BenchDatabase db,
      Targets targets,
      List<Case> cases,
      java.util.function.ToIntFunction<Case> events,
      int rounds,
      int warmupEvents,
      int warmupBatch)
      throws Exception {
    Map<Case, List<Measurement>> runs = new LinkedHashMap<>();
    int first = warmupEvents == 0 ? 1 : warmupBatch > 0 ? -1 : 0;
    for (int round = first; round <= rounds; round++) {
      if (round <= 0) {
        log.info("drain warm-up, load {}", MachineInfo.currentLoadAverage());
      } else {
        log.info("drain round {} of {}, load {}", round, rounds, MachineInfo.currentLoadAverage());
      }
      for (Case c : cases) {
        if (round <= 0 && c.fresh()) {
          continue; // nothing to warm: its JVM is new every run
        }
        if (round < 0 && c.warmingUp(warmupBatch).equals(c)) {
          continue; // a broker's case: warmed in its own batch size only
        }
        int n = round <= 0 ? warmupEvents : events.applyAsInt(c);
        db.seed(n, c.aggregates());
        Case run = round < 0 ? c.warmingUp(warmupBatch) : c;
        Measurement m = c.fresh() ? inChild(db, c, n) : drainHere(db, targets, run, n);
        if (round > 0) {
          runs.computeIfAbsent(c, k -> new ArrayList<>()).add(m);
        }
      }
    }
    return runs;
  }

  /** Drains the seeded outbox of {@code n} events in this JVM and measures it. */
  private static Measurement drainHere(BenchDatabase db, Targets targets, Case c, int n)
      throws Exception {
    Target target = JDBC_TARGETS.contains(c.target()) ? null : targets.get(c.target());
    // A warm JVM may still be compiling the case's path; its compiler threads count in its CPU.
    long jit = CpuMeter.compilerNanos();
    Map<String, Long> threads = CpuMeter.threadNanos();
    Drained d = drain(db, target, c, n);
    jit = CpuMeter.compilerNanos() - jit;
    logThreads(c, threads, CpuMeter.threadNanos(), d);
    if (target != null) {
      target.afterRun();
    }
    return checked(c, d.events(), n, d.nanos(), d.cpu()).withJit(jit / 1e3 / d.events());
  }

  /**
   * With {@code -Dbench.threads=true}, logs the CPU per event of each group of this JVM's threads
   * that used any during the drain, for finding where a case's JVM CPU goes.
   */
  private static void logThreads(
      Case c, Map<String, Long> before, Map<String, Long> after, Drained d) {
    if (!Boolean.getBoolean("bench.threads")) {
      return;
    }
    StringBuilder line = new StringBuilder();
    after.forEach(
        (name, nanos) -> {
          long used = nanos - before.getOrDefault(name, 0L);
          if (used > 0) {
            line.append(String.format("  %s %.2f", name, used / 1e3 / d.events()));
          }
        });
    log.info(
        "{}: JVM {} µs per event, by thread (µs per event):{}",
        c.label(),
        String.format("%.2f", d.cpu().jvmNanos() / 1e3 / d.events()),
        line);
  }

  /** What one drain did: events completed, nanoseconds, CPU spent. */
  private record Drained(long events, long nanos, CpuMeter.Sample cpu) {}

  /**
   * Drains the seeded outbox of {@code n} events with the plain JDBC cycles ({@code target} null)
   * or a relay publishing to {@code target}, counting CPU from just before it starts; a relay's
   * clock runs from {@code relay.start()} to the last commit (not the publisher's creation nor the
   * close).
   */
  private static Drained drain(BenchDatabase db, Target target, Case c, int n) throws Exception {
    CpuMeter.Sample before = db.cpu().sample();
    long start = System.nanoTime();
    long drained;
    long nanos;
    if (target == null) {
      drained = jdbcDrain(db, c);
      nanos = System.nanoTime() - start;
    } else {
      nanos = relayDrain(db, target, c, n, PublishTracer.none());
      drained = n;
    }
    return new Drained(drained, nanos, db.cpu().sample().minus(before));
  }

  private static long jdbcDrain(BenchDatabase db, Case c) throws Exception {
    JdbcBaselineRelay.Cycle cycle =
        switch (c.target()) {
          case "ceiling" -> JdbcBaselineRelay.Cycle.CEILING;
          case "per-row" -> JdbcBaselineRelay.Cycle.PER_ROW;
          case "jdbc-message" -> JdbcBaselineRelay.Cycle.MESSAGES;
          default -> JdbcBaselineRelay.Cycle.BATCH;
        };
    return JdbcBaselineRelay.drain(
        db.dataSource(), cycle, c.workers(), c.batchSize(), c.mode() == CompletionMode.DELETE);
  }

  /**
   * Drains the seeded outbox of {@code n} events in a new JVM ({@link #child}) and measures it by
   * the child's own figures.
   */
  private static Measurement inChild(BenchDatabase db, Case c, int n) throws Exception {
    List<String> args = new ArrayList<>(List.of("--child", "drain", "--url", db.url()));
    args.addAll(List.of("--events", String.valueOf(n)));
    args.addAll(c.options());
    String result =
        ChildJvm.run(ChildJvm.classPath(), childJvmOptions, DrainBenchmark.class, c.label(), args);
    long[] f = Arrays.stream(result.split(" ")).mapToLong(Long::parseLong).toArray();
    return checked(c, f[0], n, f[1], new CpuMeter.Sample(f[2], f[3])).withJit(f[4] / 1e3 / f[0]);
  }

  /**
   * A child JVM's side of a fresh case, as a restarted relay: opens a pool on the outbox its parent
   * seeded, then counts CPU from just before the relay (or the plain JDBC relay) starts until it
   * drained every event, and prints the events drained, nanoseconds, and the JVM's and PostgreSQL's
   * CPU nanoseconds as its result line.
   */
  private static void child(Map<String, String> options) throws Exception {
    Case c = Case.fromOptions(options);
    int events = Integer.parseInt(options.get("events"));
    if (!JDBC_TARGETS.contains(c.target()) && !c.target().equals("noop")) {
      throw new IllegalArgumentException(
          "a fresh JVM runs the no-op and JDBC targets only, but got '" + c.target() + "'");
    }
    try (BenchDatabase db = BenchDatabase.existing(options.get("url"));
        NoopTarget noop = new NoopTarget()) {
      long jit = CpuMeter.compilerNanos();
      Drained d = drain(db, JDBC_TARGETS.contains(c.target()) ? null : noop, c, events);
      jit = CpuMeter.compilerNanos() - jit;
      ChildJvm.result(
          d.events()
              + " "
              + d.nanos()
              + " "
              + d.cpu().jvmNanos()
              + " "
              + d.cpu().postgresNanos()
              + " "
              + jit);
    }
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

  /**
   * The figures of a run that drained {@code drained} events.
   *
   * @throws IllegalStateException if that is not the {@code expected} count
   */
  private static Measurement checked(
      Case c, long drained, int expected, long nanos, CpuMeter.Sample cpu) {
    if (drained != expected) {
      throw new IllegalStateException(c.label() + " drained " + drained + " of " + expected);
    }
    return measurement(c.label(), drained, nanos, cpu);
  }

  /** The figures of a drain of {@code drained} events in {@code nanos}, logged. */
  static Measurement measurement(String label, long drained, long nanos, CpuMeter.Sample cpu) {
    Measurement m =
        new Measurement(
            drained / (nanos / 1e9),
            cpu.jvmNanos() / 1e3 / drained,
            cpu.postgresNanos() / 1e3 / drained,
            oneMinuteLoad());
    log.info(
        "{}: {} events/s, CPU per event {} µs JVM / {} µs PostgreSQL, load {}",
        label,
        Math.round(m.rate()),
        String.format("%.1f", m.jvmMicros()),
        String.format("%.1f", m.postgresMicros()),
        m.load());
    return m;
  }

  /** The machine's 1-minute load average, NaN where {@code /proc/loadavg} cannot be read. */
  static double oneMinuteLoad() {
    try {
      return Double.parseDouble(MachineInfo.currentLoadAverage().split(" ")[0]);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /**
   * The command line's Markdown report: every case with its reference of the same run, then each
   * shape's fresh and warm figures side by side if both ran.
   */
  static String report(
      Map<Case, List<Measurement>> runs,
      int events,
      int rounds,
      int warmupEvents,
      int warmupBatch,
      String pgVersion,
      String load) {
    StringBuilder out = new StringBuilder();
    out.append("# Drain benchmark\n\n");
    out.append(
        String.format(
            "Draining %,d pending events, median of %d interleaved rounds; fresh JVM: a new JVM"
                + " per run, as a restarted relay; warm JVM: this long-lived JVM after a warm-up"
                + " run of every warm case (%,d events%s). %d cores, Java %s, PostgreSQL %s. Load"
                + " average (1, 5, 15 min) at the start: %s.%n%n",
            events,
            rounds,
            warmupEvents,
            warmupBatch > 0
                ? ", a relay's or plain relay's first in batches of "
                    + warmupBatch
                    + ", then its own"
                : "",
            Runtime.getRuntime().availableProcessors(),
            System.getProperty("java.version"),
            pgVersion,
            load));
    out.append(ReportWriter.markdown(table(runs)));
    ReportSection.Table sideBySide = freshAndWarm(runs);
    if (!sideBySide.rows().isEmpty()) {
      out.append("\n## Fresh and warm JVM side by side\n\n")
          .append(ReportWriter.markdown(sideBySide));
    }
    return out.toString();
  }

  /**
   * Every case's median events/s, its ratio to its reference in the same runs and kind of JVM (the
   * plain JDBC relay of the same shape; for ordered cases the unordered no-op relay; for a broker
   * the no-op relay), CPU µs per event with the JVM's ratio to the reference's, with and without
   * the JIT compiler threads' share, and the 1-minute load average over the runs.
   */
  static ReportSection.Table table(Map<Case, List<Measurement>> runs) {
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<Case, List<Measurement>> e : runs.entrySet()) {
      Case c = e.getKey();
      Case reference = reference(c);
      List<Measurement> ms = e.getValue();
      List<Measurement> ref = reference == null ? null : runs.get(reference);
      double rate = Figures.median(ms, Measurement::rate);
      double jvm = Figures.median(ms, Measurement::jvmMicros);
      rows.add(
          List.of(
              c.what(),
              c.shape(),
              c.fresh() ? "fresh" : "warm",
              Figures.rate(rate),
              range(ms, Measurement::rate, Figures::rate),
              ref == null
                  ? ""
                  : Figures.ratio(rate, Figures.median(ref, Measurement::rate))
                      + " of "
                      + reference.what(),
              Figures.one(jvm),
              Figures.one(Figures.median(ms, Measurement::jitMicros)),
              ref == null ? "" : Figures.ratio(jvm, Figures.median(ref, Measurement::jvmMicros)),
              ref == null
                  ? ""
                  : Figures.ratio(
                      Figures.median(ms, Measurement::withoutJitMicros),
                      Figures.median(ref, Measurement::withoutJitMicros)),
              Figures.one(Figures.median(ms, Measurement::postgresMicros)),
              range(ms, Measurement::load, Figures::one)));
    }
    return new ReportSection.Table(
        List.of(
            "case",
            "workers × batch",
            "JVM",
            "events/s (median)",
            "min–max",
            "vs reference, same run",
            "JVM CPU µs/event",
            "of which JIT compiler threads",
            "JVM CPU vs reference",
            "without JIT, vs reference",
            "PostgreSQL CPU µs/event",
            "load (1 min), min–max"),
        rows);
  }

  /**
   * Each case measured both in a fresh JVM and warm, one row: its median rate and JVM CPU per event
   * in each, with their ratios to the reference in the same kind of JVM, the JVM CPU without its
   * JIT compiler threads' (the application's own work), and PostgreSQL's CPU per event.
   */
  static ReportSection.Table freshAndWarm(Map<Case, List<Measurement>> runs) {
    List<List<String>> rows = new ArrayList<>();
    for (Case warm : runs.keySet()) {
      Case fresh = warm.inFreshJvm(true);
      if (warm.fresh() || !runs.containsKey(fresh)) {
        continue;
      }
      List<String> row = new ArrayList<>(List.of(warm.what(), warm.shape()));
      List<String> jvm = new ArrayList<>();
      List<String> withoutJit = new ArrayList<>();
      List<String> postgres = new ArrayList<>();
      for (Case c : List.of(fresh, warm)) {
        List<Measurement> ms = runs.get(c);
        Case reference = reference(c);
        List<Measurement> ref = reference == null ? null : runs.get(reference);
        double rate = Figures.median(ms, Measurement::rate);
        double cpu = Figures.median(ms, Measurement::jvmMicros);
        row.add(Figures.rate(rate));
        row.add(ref == null ? "" : Figures.ratio(rate, Figures.median(ref, Measurement::rate)));
        String cpuRatio =
            ref == null ? "" : Figures.ratio(cpu, Figures.median(ref, Measurement::jvmMicros));
        jvm.add(Figures.one(cpu) + (cpuRatio.isEmpty() ? "" : " (" + cpuRatio + ")"));
        double app = Figures.median(ms, Measurement::withoutJitMicros);
        String appRatio =
            ref == null
                ? ""
                : Figures.ratio(app, Figures.median(ref, Measurement::withoutJitMicros));
        withoutJit.add(Figures.one(app) + (appRatio.isEmpty() ? "" : " (" + appRatio + ")"));
        postgres.add(Figures.one(Figures.median(ms, Measurement::postgresMicros)));
      }
      row.addAll(jvm);
      row.add(String.join(" / ", withoutJit));
      row.add(String.join(" / ", postgres));
      rows.add(row);
    }
    return new ReportSection.Table(
        List.of(
            "case",
            "workers × batch",
            "fresh events/s",
            "fresh vs reference",
            "warm events/s",
            "warm vs reference",
            "JVM CPU µs/event fresh (vs reference)",
            "warm (vs reference)",
            "without JIT compiler threads, fresh / warm (vs reference)",
            "PostgreSQL CPU µs/event fresh / warm"),
        rows);
  }

  /** {@code min–max} of {@code f} over {@code runs}, each formatted by {@code format}. */
  private static <T> String range(
      List<T> runs,
      java.util.function.ToDoubleFunction<T> f,
      java.util.function.DoubleFunction<String> format) {
    double min = runs.stream().mapToDouble(f).min().orElse(Double.NaN);
    double max = runs.stream().mapToDouble(f).max().orElse(Double.NaN);
    return format.apply(min) + "–" + format.apply(max);
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
            "usage: DrainBenchmark [--events N] [--rounds N] [--jvm fresh,warm]"
                + " [--warmup-events N] [--warmup-batch N] [--targets "
                + String.join(",", TARGETS)
                + "] [--shapes "
                + DEFAULT_SHAPES
                + "]");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
