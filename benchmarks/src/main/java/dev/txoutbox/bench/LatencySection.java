package dev.txoutbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The report's latency section, from {@link LatencyBenchmark}'s measurements. Stateless. */
final class LatencySection {

  private LatencySection() {}

  static ReportSection run(ReportProfile profile, List<List<String>> summary) throws Exception {
    List<LatencyBenchmark.Result> results = new ArrayList<>();
    for (LatencyBenchmark.Mode mode : LatencyBenchmark.Mode.values()) {
      results.add(
          LatencyBenchmark.measure(
              mode,
              profile.latencyRate(),
              profile.latencyWarmup(),
              profile.latencyLength(),
              profile.idleSamples(),
              profile.quiet()));
    }
    ReportSection section = new ReportSection("3. Latency");
    section.text(
        String.format(
            "%d writer threads in this JVM commit one event per transaction at a steady %,d"
                + " events/s in total for %d s (after a %d s warm-up that is not counted); one"
                + " relay (1 worker × 100, unordered, the default adaptive poll of 25 ms – 1 s)"
                + " publishes to a no-op publisher that notes when it first sees each event."
                + " Latency: from the writer's return from commit to that moment (an event"
                + " published before its writer's clock read counts as 0).\n\n"
                + "- **in-process wake-up**: the writer's after-commit hook calls"
                + " `relay.wakeUp()`;\n"
                + "- **LISTEN/NOTIFY**: the opt-in NOTIFY trigger and the relay's LISTEN"
                + " connection. The writers run in this JVM but on their own pooled connections and"
                + " without the hook, so the relay hears of a commit only through PostgreSQL's"
                + " notification, the same path as from a writer in another process (the process"
                + " boundary itself adds nothing the database does not already see);\n"
                + "- **polling alone**: neither; the relay finds events by its poll.\n\n"
                + "From idle: after the steady part, %d single event%s, each written after %d s"
                + " without writes, when the adaptive poll has backed off to its maximum. The events/s"
                + " column shows whether the writers kept the rate (the NOTIFY trigger's commit"
                + " lock can hold them below it on a loaded machine). CPU per event counts the"
                + " whole JVM, writers included, and every backend of the database.",
            LatencyBenchmark.WRITERS,
            profile.latencyRate(),
            profile.latencyLength().toSeconds(),
            profile.latencyWarmup().toSeconds(),
            profile.idleSamples(),
            profile.idleSamples() == 1 ? "" : "s",
            profile.quiet().toSeconds()));
    double inProcessP99 = Double.NaN;
    List<List<String>> rows = new ArrayList<>();
    Map<String, List<Double>> chart = new LinkedHashMap<>();
    chart.put("p50", new ArrayList<>());
    chart.put("p99", new ArrayList<>());
    chart.put("p99.9", new ArrayList<>());
    for (LatencyBenchmark.Result r : results) {
      double p50 = Figures.percentile(r.sortedNanos(), 0.50) / 1e6;
      double p99 = Figures.percentile(r.sortedNanos(), 0.99) / 1e6;
      double p999 = Figures.percentile(r.sortedNanos(), 0.999) / 1e6;
      if (r.mode() == LatencyBenchmark.Mode.IN_PROCESS) {
        inProcessP99 = p99;
      }
      chart.get("p50").add(p50);
      chart.get("p99").add(p99);
      chart.get("p99.9").add(p999);
      String idle =
          Arrays.stream(r.idleNanos())
              .mapToObj(n -> n < 0 ? "not published in 10 s" : Figures.one(n / 1e6))
              .collect(Collectors.joining(", "));
      double jvm = r.cpu().jvmNanos() / 1e3 / Math.max(1, r.events());
      double pg = r.cpu().postgresNanos() / 1e3 / Math.max(1, r.events());
      rows.add(
          List.of(
              r.mode().label,
              Figures.rate(r.events() / r.seconds()),
              Figures.two(p50),
              Figures.two(p99),
              Figures.two(p999),
              Figures.two(
                  r.sortedNanos().length == 0
                      ? Double.NaN
                      : r.sortedNanos()[r.sortedNanos().length - 1] / 1e6),
              r.mode() == LatencyBenchmark.Mode.IN_PROCESS ? "" : Figures.ratio(p99, inProcessP99),
              idle,
              Long.toString(r.unpublished()),
              Figures.one(jvm),
              Figures.one(pg)));
      summary.add(
          List.of(
              String.format(
                  "commit → publish at %,d events/s, %s", profile.latencyRate(), r.mode().label),
              "p50 "
                  + Figures.one(p50)
                  + " ms, p99 "
                  + Figures.one(p99)
                  + " ms, p99.9 "
                  + Figures.one(p999)
                  + " ms; from idle "
                  + idle
                  + " ms",
              r.mode() == LatencyBenchmark.Mode.IN_PROCESS
                  ? ""
                  : "p99 " + Figures.ratio(p99, inProcessP99) + " of the in-process wake-up's",
              Figures.one(jvm) + " / " + Figures.one(pg)));
    }
    section.table(
        new ReportSection.Table(
            List.of(
                "wake-up",
                "events/s",
                "p50 ms",
                "p99 ms",
                "p99.9 ms",
                "max ms",
                "p99 vs in-process",
                "from idle, ms",
                "unpublished",
                "JVM CPU µs/event",
                "PostgreSQL CPU µs/event"),
            rows));
    section.chart(
        new ReportSection.Chart(
            "latency.png",
            "Commit → publish latency at " + profile.latencyRate() + " events/s",
            "milliseconds (log scale)",
            results.stream().map(r -> r.mode().label).toList(),
            chart,
            false,
            true));
    return section;
  }
}
