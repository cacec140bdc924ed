package dev.txoutbox.bench;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.PublishTracer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What tracing the relay's publishes costs: the relay draining a freshly seeded outbox with a no-op
 * publisher, once per tracing case, each case in a new JVM of its own (as a restarted relay has,
 * JIT compilation included), cases interleaved over {@code --rounds} rounds (each round starting
 * one case later). The cases:
 *
 * <ul>
 *   <li>{@code absent}: no OpenTelemetry jar on the child's class path and no tracer (the child
 *       checks that the API cannot be loaded);
 *   <li>{@code noop}: the OpenTelemetry API present but no SDK, {@code
 *       OpenTelemetryPublishTracer.create(OpenTelemetry.noop())};
 *   <li>{@code off}: the SDK with a sampler that records nothing;
 *   <li>{@code drop}: the SDK recording every span, its span processor dropping each one as it
 *       ends;
 *   <li>{@code memory}: the SDK recording every span into the in-memory exporter.
 * </ul>
 *
 * The table gives medians: events/s and its ratio to {@code absent}, and CPU per event of the child
 * JVM (JIT and GC included) and of the database's PostgreSQL backends, with the machine's load. Its
 * own database, so it never meets another benchmark's rows. Not part of the test run:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.TracingBenchmark \
 *     [--events 100000] [--rounds 3] [--workers 2] [--batch 500] [--cases absent,noop,off,drop,memory]
 * </pre>
 */
public final class TracingBenchmark {

  /** The benchmark's database on the server of {@link BenchDatabase#url}. */
  static final String DATABASE = "txoutbox_bench_tracing";

  /** The cases in their order, each with what it measures. */
  static final Map<String, String> CASES = cases();

  private TracingBenchmark() {}

  private static Map<String, String> cases() {
    Map<String, String> cases = new LinkedHashMap<>();
    cases.put("absent", "no OpenTelemetry on the class path, no tracer");
    cases.put("noop", "OpenTelemetry API without SDK (OpenTelemetry.noop())");
    cases.put("off", "SDK, sampler always off");
    cases.put("drop", "SDK, every span recorded, dropped by its span processor");
    cases.put("memory", "SDK, every span recorded into the in-memory exporter");
    return cases;
  }

  public static void main(String[] args) throws Exception {
    ChildJvm.main(args, TracingBenchmark::drive, TracingBenchmark::child);
  }

  /** One case in this JVM: seeds, drains, prints events, nanoseconds, CPU and spans recorded. */
  private static void child(Map<String, String> options) throws Exception {
    String kase = options.get("child");
    int events = Integer.parseInt(options.get("events"));
    DrainBenchmark.Case shape = shape(options);
    PublishTracer tracer;
    if (kase.equals("absent")) {
      requireAbsent();
      tracer = PublishTracer.none();
    } else {
      tracer = TracingSetup.tracer(kase); // the only class here that names OpenTelemetry
    }
    try (BenchDatabase db =
            new BenchDatabase(
                BenchDatabase.url(DATABASE), BenchDatabase.user(), BenchDatabase.password());
        NoopTarget target = new NoopTarget()) {
      db.seed(events, DrainBenchmark.DEFAULT_AGGREGATES);
      CpuMeter.Sample before = db.cpu().sample();
      long nanos = DrainBenchmark.relayDrain(db, target, shape, events, tracer);
      CpuMeter.Sample spent = db.cpu().sample().minus(before);
      long spans = kase.equals("absent") ? 0 : TracingSetup.recorded();
      long expected = kase.equals("drop") || kase.equals("memory") ? events : 0;
      if (spans != expected) {
        throw new IllegalStateException(
            "case " + kase + " recorded " + spans + " spans but should have " + expected);
      }
      ChildJvm.result(
          events
              + " "
              + nanos
              + " "
              + spent.jvmNanos()
              + " "
              + spent.postgresNanos()
              + " "
              + spans);
    }
  }

  /** Fails unless the OpenTelemetry API is missing from this JVM's class path. */
  private static void requireAbsent() {
    try {
      Class.forName("io.opentelemetry.api.OpenTelemetry");
    } catch (ClassNotFoundException expected) {
      return;
    }
    throw new IllegalStateException("case absent found the OpenTelemetry API on its class path");
  }

  private static DrainBenchmark.Case shape(Map<String, String> options) {
    return new DrainBenchmark.Case(
        "noop",
        Integer.parseInt(options.getOrDefault("workers", "2")),
        Integer.parseInt(options.getOrDefault("batch", "500")),
        CompletionMode.MARK_PROCESSED);
  }

  /** One child's figures: events, nanoseconds, JVM and PostgreSQL CPU nanoseconds, spans. */
  record Run(double events, double nanos, double jvmNanos, double postgresNanos, String load) {
    double rate() {
      return events / (nanos / 1e9);
    }

    double jvmMicros() {
      return jvmNanos / 1e3 / events;
    }

    double postgresMicros() {
      return postgresNanos / 1e3 / events;
    }
  }

  private static void drive(Map<String, String> options) throws Exception {
    String events = options.getOrDefault("events", "100000");
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
    List<String> cases =
        List.of(options.getOrDefault("cases", String.join(",", CASES.keySet())).split(","));
    for (String c : cases) {
      if (!CASES.containsKey(c)) {
        throw new IllegalArgumentException(
            "--cases takes " + String.join(", ", CASES.keySet()) + ", but got '" + c + "'");
      }
    }
    DrainBenchmark.Case shape = shape(options);
    List<String> childArgs =
        List.of(
            "--events",
            events,
            "--workers",
            String.valueOf(shape.workers()),
            "--batch",
            String.valueOf(shape.batchSize()));
    String withOpenTelemetry = ChildJvm.classPath();
    String withoutOpenTelemetry =
        ChildJvm.classPathWithout(name -> name.startsWith("opentelemetry-"));
    List<String> loads = new ArrayList<>();
    loads.add("start " + MachineInfo.currentLoadAverage());
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    for (String c : cases) {
      runs.put(c, new ArrayList<>());
    }
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < cases.size(); i++) {
        String c = cases.get((i + round) % cases.size());
        List<String> args = new ArrayList<>(List.of("--child", c));
        args.addAll(childArgs);
        String result =
            ChildJvm.run(
                c.equals("absent") ? withoutOpenTelemetry : withOpenTelemetry,
                TracingBenchmark.class,
                "case " + c,
                args);
        double[] f = Arrays.stream(result.split(" ")).mapToDouble(Double::parseDouble).toArray();
        Run run = new Run(f[0], f[1], f[2], f[3], MachineInfo.currentLoadAverage());
        runs.get(c).add(run);
        System.err.printf(
            "round %d %s: %,.0f events/s, %.1f JVM / %.1f PostgreSQL µs per event; load %s%n",
            round + 1, c, run.rate(), run.jvmMicros(), run.postgresMicros(), run.load());
      }
      loads.add("after round " + (round + 1) + " " + MachineInfo.currentLoadAverage());
    }
    String report =
        String.format(
                "# Tracing overhead%n%n"
                    + "The relay draining %,d pending events (%s, no-op publisher naming a"
                    + " destination per event), a fresh JVM per case, medians of %d interleaved"
                    + " rounds; %d cores, Java %s. Load average (1, 5, 15 min): %s.%n%n",
                Long.parseLong(events),
                shape.shape(),
                rounds,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                String.join("; ", loads))
            + ReportWriter.markdown(table(runs));
    DrainBenchmark.writeReport("tracing", report);
  }

  /** Each case's medians and their ratios to {@code absent}'s, if it ran. */
  static ReportSection.Table table(Map<String, List<Run>> runs) {
    List<Run> absent = runs.get("absent");
    double absentRate = absent == null ? Double.NaN : Figures.median(absent, Run::rate);
    double absentJvm = absent == null ? Double.NaN : Figures.median(absent, Run::jvmMicros);
    List<List<String>> rows = new ArrayList<>();
    for (Map.Entry<String, List<Run>> e : runs.entrySet()) {
      List<Run> rs = e.getValue();
      double rate = Figures.median(rs, Run::rate);
      double jvm = Figures.median(rs, Run::jvmMicros);
      rows.add(
          List.of(
              e.getKey(),
              CASES.get(e.getKey()),
              Figures.rate(rate),
              String.format(
                  "%s–%s",
                  Figures.rate(rs.stream().mapToDouble(Run::rate).min().orElse(Double.NaN)),
                  Figures.rate(rs.stream().mapToDouble(Run::rate).max().orElse(Double.NaN))),
              Figures.ratio(rate, absentRate),
              Figures.one(jvm),
              Figures.ratio(jvm, absentJvm),
              Figures.one(Figures.median(rs, Run::postgresMicros))));
    }
    return new ReportSection.Table(
        List.of(
            "case",
            "tracing",
            "events/s (median)",
            "min–max",
            "÷ absent",
            "JVM CPU µs/event",
            "÷ absent",
            "PostgreSQL CPU µs/event"),
        rows);
  }
}
