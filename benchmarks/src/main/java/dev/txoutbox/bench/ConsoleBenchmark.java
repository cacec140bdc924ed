package dev.txoutbox.bench;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.console.ConsoleServer;
import dev.txoutbox.console.OutboxConsole;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the operations console slows the relay: the same drain of N pending events (txoutbox
 * relay, no-op publisher, 2 workers × 500) with no console, and with a console whose overview is
 * fetched every second (as an open browser tab refreshes it, ten times as often), interleaved round
 * by round in one JVM; the ratio of the medians must be at least 0.95. Then the time of each page's
 * API call on a large outbox (1M pending + 5M processed by default), each fetched 20 times. Not
 * part of {@code mvn verify}:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.ConsoleBenchmark \
 *     [--events 100000] [--rounds 3] [--pending 1000000] [--processed 5000000] [--skip-backlog]
 * </pre>
 *
 * <p>Database as {@link BenchDatabase} (schema {@code bench}, emptied first).
 */
public final class ConsoleBenchmark {

  private static final Logger log = LoggerFactory.getLogger(ConsoleBenchmark.class);

  /** How often the console's overview is fetched during a drain: every second. */
  static final Duration POLL_EVERY = Duration.ofSeconds(1);

  /** Fetches of each page on the large outbox: 20. */
  static final int PAGE_FETCHES = 20;

  private ConsoleBenchmark() {}

  /** Runs the benchmark; see the class comment for the options. */
  public static void main(String[] args) throws Exception {
    int events = intOption(args, "--events", 100_000);
    int rounds = intOption(args, "--rounds", 3);
    int pending = intOption(args, "--pending", 1_000_000);
    int processed = intOption(args, "--processed", 5_000_000);
    boolean backlog = !Arrays.asList(args).contains("--skip-backlog");
    try (BenchDatabase db = BenchDatabase.fromEnvironment()) {
      // The drain beside a console as deployed (its counts reused for 5 s); the page times with
      // every count read again, so that they are the queries' times.
      try (ConsoleServer server = console(db, OutboxConsole.DEFAULT_COUNTS_MAX_AGE).start()) {
        drainRatio(db, server.uri().resolve("api/o/bench/overview"), events, rounds);
      }
      if (backlog) {
        try (ConsoleServer server = console(db, Duration.ZERO).start()) {
          pageTimes(db, server.uri(), pending, processed);
        }
      }
    }
  }

  private static OutboxConsole console(BenchDatabase db, Duration countsMaxAge) {
    return OutboxConsole.builder()
        .outbox("bench", db.dataSource(), OutboxTables.in(BenchDatabase.SCHEMA))
        .countsMaxAge(countsMaxAge)
        .port(0)
        .build();
  }

  /** The drain with and without a console polling, interleaved; prints the table and the ratio. */
  private static void drainRatio(BenchDatabase db, URI overview, int events, int rounds)
      throws Exception {
    drain(db, overview, events, false); // warm-up, not counted
    drain(db, overview, events, true);
    List<Double> without = new ArrayList<>();
    List<Double> with = new ArrayList<>();
    List<Double> cpuWithout = new ArrayList<>();
    List<Double> cpuWith = new ArrayList<>();
    int[] polls = new int[rounds];
    for (int r = 0; r < rounds; r++) {
      Drain none = drain(db, overview, events, false);
      without.add(none.rate());
      cpuWithout.add(none.cpuMicrosPerEvent());
      Drain d = drain(db, overview, events, true);
      with.add(d.rate());
      cpuWith.add(d.cpuMicrosPerEvent());
      polls[r] = d.polls();
    }
    double a = Figures.median(without, Double::doubleValue);
    double b = Figures.median(with, Double::doubleValue);
    double ca = Figures.median(cpuWithout, Double::doubleValue);
    double cb = Figures.median(cpuWith, Double::doubleValue);
    System.out.printf(
        Locale.ROOT,
        "%n| relay drain of %,d (no-op, 2 workers x 500) | events/s (median of %d) | CPU µs/event"
            + " (JVM + PostgreSQL) | runs (events/s) |%n"
            + "|---|---|---|---|%n"
            + "| no console | %s | %.1f | %s |%n"
            + "| console, overview fetched every %ds | %s | %.1f | %s (overview fetches per run: %s)"
            + " |%n"
            + "%nratio with console / without: %.3f events/s (required >= 0.95), %.3f CPU per"
            + " event%n",
        events,
        rounds,
        Figures.rate(a),
        ca,
        runs(without),
        POLL_EVERY.toSeconds(),
        Figures.rate(b),
        cb,
        runs(with),
        Arrays.toString(polls),
        b / a,
        cb / ca);
  }

  private static String runs(List<Double> rates) {
    return rates.stream().map(Figures::rate).collect(java.util.stream.Collectors.joining(", "));
  }

  private record Drain(double rate, double cpuMicrosPerEvent, int polls) {}

  private static Drain drain(BenchDatabase db, URI overview, int events, boolean poll)
      throws Exception {
    db.seed(events, 1_000);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger polls = new AtomicInteger();
    Thread poller =
        new Thread(
            () -> {
              HttpClient http = HttpClient.newHttpClient();
              while (running.get()) {
                try {
                  HttpResponse<String> r =
                      http.send(
                          HttpRequest.newBuilder(overview).GET().build(),
                          HttpResponse.BodyHandlers.ofString());
                  if (r.statusCode() != 200) {
                    log.warn("overview answered {}: {}", r.statusCode(), r.body());
                  }
                  polls.incrementAndGet();
                  Thread.sleep(POLL_EVERY.toMillis());
                } catch (InterruptedException e) {
                  return;
                } catch (Exception e) {
                  log.warn("overview fetch failed", e);
                }
              }
            },
            "console-poller");
    DrainBenchmark.DrainClock clock = new DrainBenchmark.DrainClock(events);
    try (Publisher publisher = new NoopTarget().publisher()) {
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(db.dataSource())
              .schema(BenchDatabase.SCHEMA)
              .publisher(publisher)
              .listener(clock)
              .config(
                  RelayConfig.builder()
                      .name("bench")
                      .workers(2)
                      .batchSize(500)
                      .completionMode(CompletionMode.MARK_PROCESSED)
                      .minPollInterval(Duration.ofMillis(5))
                      .maxPollInterval(Duration.ofMillis(50))
                      .build())
              .build();
      CpuMeter.Sample cpu = db.cpu().sample();
      if (poll) {
        poller.start();
      }
      clock.start();
      relay.start();
      boolean finished = clock.await(Duration.ofMinutes(10));
      relay.close(Duration.ofSeconds(30));
      running.set(false);
      poller.interrupt();
      poller.join();
      long nanos = clock.nanos(poll ? "with console" : "without console", finished);
      CpuMeter.Sample spent = db.cpu().sample().minus(cpu);
      double cpuMicros = (spent.jvmNanos() + spent.postgresNanos()) / 1e3 / events;
      return new Drain(events / (nanos / 1e9), cpuMicros, polls.get());
    }
  }

  /** Each page's API on a large outbox: median and worst of {@value #PAGE_FETCHES} fetches. */
  private static void pageTimes(BenchDatabase db, URI base, int pending, int processed)
      throws Exception {
    log.info("seeding {} pending and {} processed events", pending, processed);
    db.seed(
        pending,
        1_000,
        () ->
            SeedEvents.insert(
                db.dsl(),
                BenchDatabase.SCHEMA,
                processed,
                1_000,
                DSL.field("now() - interval '1 day'", java.time.OffsetDateTime.class),
                null));
    HttpClient http = HttpClient.newHttpClient();
    System.out.printf(
        Locale.ROOT,
        "%n| page API on %,d pending + %,d processed | median ms | max ms |%n|---|---|---|%n",
        pending,
        processed);
    for (String page :
        List.of(
            "overview",
            "events",
            "events?state=pending",
            "events?state=processed",
            "dead-letters",
            "relays",
            "chart")) {
      long[] ms = new long[PAGE_FETCHES];
      for (int i = 0; i < PAGE_FETCHES; i++) {
        long start = System.nanoTime();
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(base.resolve("api/o/bench/" + page)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        ms[i] = (System.nanoTime() - start) / 1_000_000;
        if (r.statusCode() != 200) {
          throw new IllegalStateException(page + " answered " + r.statusCode() + ": " + r.body());
        }
      }
      Arrays.sort(ms);
      System.out.printf(
          Locale.ROOT, "| %s | %d | %d |%n", page, ms[PAGE_FETCHES / 2], ms[PAGE_FETCHES - 1]);
    }
  }

  private static int intOption(String[] args, String name, int fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        int value = Integer.parseInt(args[i + 1]);
        if (value < 1) {
          throw new IllegalArgumentException(name + " must be at least 1 but was " + value);
        }
        return value;
      }
    }
    return fallback;
  }
}
