package dev.txoutbox.bench;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxRelay;
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
 * Drains N pending events again and again, side by side in one process: a plain JDBC relay (the
 * database's ceiling for this work), the txoutbox relay with a no-op publisher, and the relay
 * publishing to Kafka, RabbitMQ and SQS (ElasticMQ). Rounds interleave every case, and the report
 * gives the median rate and its ratio to the JDBC baseline with the same workers and batch.
 *
 * <pre>
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.DrainBenchmark \
 *     [--events 100000] [--rounds 3] [--targets jdbc,noop,ordered,kafka,rabbit,sqs]
 * </pre>
 *
 * <p>Database from {@code OUTBOX_BENCH_JDBC_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/txoutbox_bench}, user {@code postgres}); RabbitMQ from {@code
 * OUTBOX_BENCH_AMQP_URI} (default the local service).
 */
public final class DrainBenchmark {

  private static final Logger log = LoggerFactory.getLogger(DrainBenchmark.class);

  /** Aggregates the events of a case are spread over unless it says otherwise. */
  static final int DEFAULT_AGGREGATES = 1_000;

  /** One measured configuration. */
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

    String label() {
      return target
          + (ordering == Ordering.NONE
              ? ""
              : String.format(
                  ", ordered per aggregate (%,d aggregate%s)",
                  aggregates, aggregates == 1 ? "" : "s"))
          + " | "
          + workers
          + " | "
          + batchSize
          + " | "
          + (mode == CompletionMode.DELETE ? "delete" : "mark");
    }
  }

  /** One run of a case: events per second, and CPU per event of the JVM and of PostgreSQL. */
  record Measurement(double rate, double jvmMicros, double postgresMicros) {}

  /**
   * The targets: {@code ordered} is the no-op publisher unordered and ordered per aggregate over
   * 1,000, 10 and 1 aggregates, 2 workers of 500.
   */
  static final List<String> TARGETS = List.of("jdbc", "noop", "ordered", "kafka", "rabbit", "sqs");

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
    String url =
        System.getenv()
            .getOrDefault(
                "OUTBOX_BENCH_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/txoutbox_bench");
    String amqp =
        System.getenv().getOrDefault("OUTBOX_BENCH_AMQP_URI", "amqp://guest:guest@127.0.0.1:5672");

    Map<String, List<Measurement>> rates = new LinkedHashMap<>();
    try (BenchDatabase db =
        new BenchDatabase(
            url,
            System.getenv().getOrDefault("OUTBOX_BENCH_DB_USER", "postgres"),
            System.getenv().getOrDefault("OUTBOX_BENCH_DB_PASSWORD", ""))) {
      Map<String, Target> started = new LinkedHashMap<>();
      try {
        if (targets.contains("noop")) {
          started.put("noop", new NoopTarget());
        }
        if (targets.contains("ordered")) {
          started.put("ordered", new NoopTarget());
        }
        if (targets.contains("kafka")) {
          started.put("kafka", new KafkaTarget());
        }
        if (targets.contains("rabbit")) {
          started.put("rabbit", new RabbitTarget(amqp));
        }
        if (targets.contains("sqs")) {
          started.put("sqs", new SqsTarget());
        }
        for (int round = 1; round <= rounds; round++) {
          log.info("round {} of {}", round, rounds);
          if (targets.contains("jdbc")) {
            for (Case c : baselineCases()) {
              db.seed(events, c.aggregates());
              CpuMeter.Sample cpu = db.cpu().sample();
              long start = System.nanoTime();
              long drained =
                  JdbcBaselineRelay.drain(
                      db.dataSource(),
                      c.workers(),
                      c.batchSize(),
                      c.mode() == CompletionMode.DELETE);
              long nanos = System.nanoTime() - start;
              record(rates, c, drained, events, nanos, db.cpu().sample().minus(cpu));
            }
          }
          for (Map.Entry<String, Target> t : started.entrySet()) {
            for (Case c : cases(t.getKey(), t.getValue().name())) {
              db.seed(events, c.aggregates());
              CpuMeter.Sample cpu = db.cpu().sample();
              long nanos = relayDrain(db, t.getValue(), c, events);
              record(rates, c, events, events, nanos, db.cpu().sample().minus(cpu));
              t.getValue().afterRun();
            }
          }
        }
      } finally {
        started.values().forEach(Target::close);
      }
      writeReport("drain", report(rates, events, rounds, db.serverVersion()));
    }
  }

  /** The baseline in every workers × batch of the no-op cases, marking and deleting. */
  private static List<Case> baselineCases() {
    List<Case> cases = new ArrayList<>();
    for (CompletionMode mode : CompletionMode.values()) {
      for (int[] wb : NOOP_SHAPES) {
        cases.add(new Case("jdbc baseline", wb[0], wb[1], mode));
      }
    }
    return cases;
  }

  /** Workers × batch of the no-op and baseline cases. */
  private static final int[][] NOOP_SHAPES = {{1, 100}, {2, 100}, {1, 500}, {2, 500}};

  private static List<Case> cases(String key, String name) {
    List<Case> cases = new ArrayList<>();
    if (key.equals("ordered")) {
      cases.add(new Case(name, 2, 500, CompletionMode.MARK_PROCESSED));
      for (int aggregates : new int[] {1_000, 10, 1}) {
        cases.add(
            new Case(
                name, 2, 500, CompletionMode.MARK_PROCESSED, Ordering.PER_AGGREGATE, aggregates));
      }
    } else if (key.equals("noop")) {
      for (CompletionMode mode : CompletionMode.values()) {
        for (int[] wb : NOOP_SHAPES) {
          cases.add(new Case(name, wb[0], wb[1], mode));
        }
      }
      cases.add(
          new Case(
              name,
              2,
              500,
              CompletionMode.MARK_PROCESSED,
              Ordering.PER_AGGREGATE,
              DEFAULT_AGGREGATES));
    } else {
      cases.add(new Case(name, 1, 100, CompletionMode.MARK_PROCESSED));
      cases.add(new Case(name, 2, 500, CompletionMode.MARK_PROCESSED));
    }
    return cases;
  }

  /**
   * Starts a relay on the seeded outbox and returns the nanoseconds from {@code relay.start()}
   * until the batch holding the last event committed. The clock stops in {@code batchCompleted},
   * which the relay calls after the cycle's transaction committed, as the baseline's clock includes
   * its commits; {@code published} comes before the completion statement and the commit, and
   * stopping there flattered the relay by one batch's completion (logged as "to the last
   * published").
   */
  private static long relayDrain(BenchDatabase db, Target target, Case c, int events)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(1);
    AtomicLong committed = new AtomicLong();
    AtomicInteger published = new AtomicInteger();
    AtomicLong lastPublishedAt = new AtomicLong();
    RelayListener counter =
        new RelayListener() {
          @Override
          public void published(OutboxMessage message) {
            if (published.incrementAndGet() == events) {
              lastPublishedAt.set(System.nanoTime());
            }
          }

          @Override
          public void batchCompleted(int claimed, int completed, int failed, Duration duration) {
            if (committed.addAndGet(completed) >= events) {
              done.countDown();
            }
          }
        };
    try (Publisher publisher = target.publisher()) {
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(db.dataSource())
              .schema(BenchDatabase.SCHEMA)
              .publisher(publisher)
              .listener(counter)
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
      long start = System.nanoTime();
      relay.start();
      boolean finished = done.await(10, TimeUnit.MINUTES);
      long nanos = System.nanoTime() - start;
      relay.close(Duration.ofSeconds(30));
      if (!finished) {
        throw new IllegalStateException(
            c.label() + ": " + (events - committed.get()) + " events not completed in 10 minutes");
      }
      log.info(
          "{}: {} events/s to the last commit, {} events/s to the last published",
          c.label(),
          Math.round(events / (nanos / 1e9)),
          Math.round(events / ((lastPublishedAt.get() - start) / 1e9)));
      return nanos;
    }
  }

  private static void record(
      Map<String, List<Measurement>> rates,
      Case c,
      long drained,
      int expected,
      long nanos,
      CpuMeter.Sample cpu) {
    if (drained != expected) {
      throw new IllegalStateException(c.label() + " drained " + drained + " of " + expected);
    }
    Measurement m =
        new Measurement(
            drained / (nanos / 1e9),
            cpu.jvmNanos() / 1e3 / drained,
            cpu.postgresNanos() / 1e3 / drained);
    rates.computeIfAbsent(c.label(), k -> new ArrayList<>()).add(m);
    log.info(
        "{}: {} events/s, CPU per event {} µs JVM / {} µs PostgreSQL",
        c.label(),
        Math.round(m.rate()),
        String.format("%.1f", m.jvmMicros()),
        String.format("%.1f", m.postgresMicros()));
  }

  static String report(
      Map<String, List<Measurement>> rates, int events, int rounds, String pgVersion) {
    StringBuilder out = new StringBuilder();
    out.append("# Drain benchmark\n\n");
    out.append("Draining ")
        .append(events)
        .append(" pending events, median of ")
        .append(rounds)
        .append(" interleaved rounds.\n\n");
    out.append("Machine: ")
        .append(Runtime.getRuntime().availableProcessors())
        .append(" cores, ")
        .append(Runtime.getRuntime().maxMemory() / (1024 * 1024))
        .append(" MiB max heap, Java ")
        .append(System.getProperty("java.version"))
        .append(", ")
        .append(System.getProperty("os.name"))
        .append(" ")
        .append(System.getProperty("os.arch"))
        .append(", PostgreSQL ")
        .append(pgVersion)
        .append(".\n\n");
    out.append(
        "| target | workers | batch | completion | events/s (median) | min–max | vs JDBC baseline"
            + " | vs unordered no-op | CPU µs/event JVM | CPU µs/event PostgreSQL |\n");
    out.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<String, List<Measurement>> e : rates.entrySet()) {
      List<Double> sorted = e.getValue().stream().map(Measurement::rate).sorted().toList();
      double median = median(e.getValue(), Measurement::rate);
      String[] parts = e.getKey().split(" \\| ");
      String baselineKey =
          "jdbc baseline | " + parts[1] + " | " + parts[2] + " | " + parts[3]; // same completion
      String unorderedKey = "no-op | " + parts[1] + " | " + parts[2] + " | mark";
      out.append("| ")
          .append(String.join(" | ", parts))
          .append(" | ")
          .append(String.format("%,.0f", median))
          .append(" | ")
          .append(String.format("%,.0f–%,.0f", sorted.get(0), sorted.get(sorted.size() - 1)))
          .append(" | ")
          .append(ratio(rates, e.getKey(), baselineKey, median))
          .append(" | ")
          .append(
              e.getKey().contains("ordered") ? ratio(rates, e.getKey(), unorderedKey, median) : "")
          .append(" | ")
          .append(String.format("%.1f", median(e.getValue(), Measurement::jvmMicros)))
          .append(" | ")
          .append(String.format("%.1f", median(e.getValue(), Measurement::postgresMicros)))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String ratio(
      Map<String, List<Measurement>> rates, String key, String reference, double median) {
    List<Measurement> base = rates.get(reference);
    if (base == null || key.equals(reference)) {
      return "";
    }
    return String.format("%.2f×", median / median(base, Measurement::rate));
  }

  private static double median(
      List<Measurement> runs, java.util.function.ToDoubleFunction<Measurement> value) {
    List<Double> sorted = runs.stream().map(value::applyAsDouble).sorted().toList();
    return sorted.get(sorted.size() / 2);
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
                + "]");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
