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
 *     [--events 100000] [--rounds 3] [--targets jdbc,noop,kafka,rabbit,sqs]
 * </pre>
 *
 * <p>Database from {@code OUTBOX_BENCH_JDBC_URL} (default {@code
 * jdbc:postgresql://127.0.0.1:5432/txoutbox_bench}, user {@code postgres}); RabbitMQ from {@code
 * OUTBOX_BENCH_AMQP_URI} (default the local service).
 */
public final class DrainBenchmark {

  private static final Logger log = LoggerFactory.getLogger(DrainBenchmark.class);

  /** One measured configuration. */
  record Case(String target, int workers, int batchSize, CompletionMode mode, Ordering ordering) {
    Case(String target, int workers, int batchSize, CompletionMode mode) {
      this(target, workers, batchSize, mode, Ordering.NONE);
    }

    String label() {
      return target
          + (ordering == Ordering.NONE ? "" : ", ordered per aggregate")
          + " | "
          + workers
          + " | "
          + batchSize
          + " | "
          + (mode == CompletionMode.DELETE ? "delete" : "mark");
    }

    String baselineLabel() {
      return new Case("jdbc baseline", workers, batchSize, CompletionMode.MARK_PROCESSED).label();
    }
  }

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
      if (!List.of("jdbc", "noop", "kafka", "rabbit", "sqs").contains(target)) {
        throw new IllegalArgumentException(
            "--targets takes jdbc, noop, kafka, rabbit, sqs, but got '" + target + "'");
      }
    }
    String url =
        System.getenv()
            .getOrDefault(
                "OUTBOX_BENCH_JDBC_URL", "jdbc:postgresql://127.0.0.1:5432/txoutbox_bench");
    String amqp =
        System.getenv().getOrDefault("OUTBOX_BENCH_AMQP_URI", "amqp://guest:guest@127.0.0.1:5672");

    Map<String, List<Double>> rates = new LinkedHashMap<>();
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
            for (int[] wb : new int[][] {{1, 100}, {2, 100}, {1, 500}, {2, 500}}) {
              Case c = new Case("jdbc baseline", wb[0], wb[1], CompletionMode.MARK_PROCESSED);
              db.seed(events, 1000);
              long start = System.nanoTime();
              long drained = JdbcBaselineRelay.drain(db.dataSource(), wb[0], wb[1]);
              record(rates, c, drained, events, System.nanoTime() - start);
            }
          }
          for (Map.Entry<String, Target> t : started.entrySet()) {
            for (Case c : cases(t.getKey(), t.getValue().name())) {
              db.seed(events, 1000);
              long nanos = relayDrain(db, t.getValue(), c, events);
              record(rates, c, events, events, nanos);
              t.getValue().afterRun();
            }
          }
        }
      } finally {
        started.values().forEach(Target::close);
      }
      String report = report(rates, events, rounds, db.serverVersion());
      System.out.println(report);
      Path out = Path.of("benchmarks", "results");
      Files.createDirectories(out);
      Path file =
          out.resolve(
              "drain-"
                  + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                  + ".md");
      Files.writeString(file, report);
      log.info("report written to {}", file);
    }
  }

  private static List<Case> cases(String key, String name) {
    List<Case> cases = new ArrayList<>();
    if (key.equals("noop")) {
      for (int[] wb : new int[][] {{1, 100}, {2, 100}, {1, 500}, {2, 500}}) {
        cases.add(new Case(name, wb[0], wb[1], CompletionMode.MARK_PROCESSED));
      }
      cases.add(new Case(name, 1, 500, CompletionMode.DELETE));
      cases.add(new Case(name, 2, 500, CompletionMode.DELETE));
      cases.add(new Case(name, 2, 500, CompletionMode.MARK_PROCESSED, Ordering.PER_AGGREGATE));
    } else {
      cases.add(new Case(name, 1, 100, CompletionMode.MARK_PROCESSED));
      cases.add(new Case(name, 2, 500, CompletionMode.MARK_PROCESSED));
    }
    return cases;
  }

  /**
   * Starts a relay on the seeded outbox and returns the nanoseconds until every event published.
   */
  private static long relayDrain(BenchDatabase db, Target target, Case c, int events)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(events);
    RelayListener counter =
        new RelayListener() {
          @Override
          public void published(OutboxMessage message) {
            done.countDown();
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
            c.label() + ": " + done.getCount() + " events not published in 10 minutes");
      }
      return nanos;
    }
  }

  private static void record(
      Map<String, List<Double>> rates, Case c, long drained, int expected, long nanos) {
    if (drained != expected) {
      throw new IllegalStateException(c.label() + " drained " + drained + " of " + expected);
    }
    double rate = drained / (nanos / 1e9);
    rates.computeIfAbsent(c.label(), k -> new ArrayList<>()).add(rate);
    log.info("{}: {} events/s", c.label(), Math.round(rate));
  }

  static String report(Map<String, List<Double>> rates, int events, int rounds, String pgVersion) {
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
        "| target | workers | batch | completion | events/s (median) | min–max | vs JDBC baseline |\n");
    out.append("|---|---:|---:|---|---:|---:|---:|\n");
    for (Map.Entry<String, List<Double>> e : rates.entrySet()) {
      List<Double> sorted = e.getValue().stream().sorted().toList();
      double median = sorted.get(sorted.size() / 2);
      String[] parts = e.getKey().split(" \\| ");
      String baselineKey = "jdbc baseline | " + parts[1] + " | " + parts[2] + " | mark";
      // (ordered cases compare with the same unordered baseline)
      List<Double> base = rates.get(baselineKey);
      String ratio = "";
      if (base != null && !e.getKey().equals(baselineKey)) {
        double b = base.stream().sorted().toList().get(base.size() / 2);
        ratio = String.format("%.2f×", median / b);
      }
      out.append("| ")
          .append(String.join(" | ", parts))
          .append(" | ")
          .append(String.format("%,.0f", median))
          .append(" | ")
          .append(String.format("%,.0f–%,.0f", sorted.get(0), sorted.get(sorted.size() - 1)))
          .append(" | ")
          .append(ratio)
          .append(" |\n");
    }
    return out.toString();
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException(
            "usage: DrainBenchmark [--events N] [--rounds N] [--targets jdbc,noop,kafka,rabbit,sqs]");
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }
}
