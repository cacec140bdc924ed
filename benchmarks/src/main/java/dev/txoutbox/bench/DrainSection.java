package dev.txoutbox.bench;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The report's drain section, from {@link DrainBenchmark}'s measurements. Stateless. */
final class DrainSection {

  private static final Logger log = LoggerFactory.getLogger(DrainSection.class);

  private DrainSection() {}

  static ReportSection run(ReportProfile profile, BenchDatabase db, List<List<String>> summary)
      throws Exception {
    ReportSection section = new ReportSection("1. Drain");
    section.text(
        String.format(
            "Each run drains a freshly seeded outbox: %,d pending events (%,d for the per-row"
                + " relay and the broker targets) over 1,000 aggregates unless a case says otherwise, a 180-byte JSON"
                + " payload and a `traceparent` header each, then `VACUUM ANALYZE`; median of %d"
                + " interleaved round%s after uncounted warm-up rounds of every case (%,d events"
                + " each; a relay's or plain relay's first in batches of "
                + DrainBenchmark.WARMUP_BATCH
                + ", which runs its per-batch code as often as a relay that has run a while and"
                + " gets it compiled, then in its own). The rate runs from the start of the drain to the commit of"
                + " the batch holding the last event. CPU per event: this JVM"
                + " (`getProcessCpuTime`) and the database's PostgreSQL backends (`/proc/<pid>/stat`)"
                + " over the run, the steadier figure on a shared machine.\n\n"
                + "- **database ceiling**: the relay's claim and the completion as one statement"
                + " (`WITH … FOR UPDATE SKIP LOCKED UPDATE/DELETE …`) in auto-commit, nothing"
                + " returned but the count;\n"
                + "- **plain JDBC relay**: the relay's claim statement, one `UPDATE`/`DELETE … WHERE"
                + " id = ANY(?)`, commit — the reference of every relay row of the same shape; it"
                + " reads each row's id, payload and headers and builds nothing;\n"
                + "- **plain JDBC relay, reading each event's message**: the same cycle, reading"
                + " every column of each claimed row into a record (id, seq, aggregate, type,"
                + " payload, headers text, `created_at` as an instant, attempt): the least Java work"
                + " of a relay that hands a publisher the event, and so the bound of any such relay"
                + " in the same JVM;\n"
                + "- **per-row relay**: the seed article's loop, claim 100 and one `UPDATE` per"
                + " event;\n"
                + "- **txoutbox**: the relay with a no-op publisher (ordered rows are compared with the"
                + " unordered no-op relay), and with the real plugins (compared with the no-op relay"
                + " of the same shape): a KRaft broker in a child JVM (3 partitions, `acks=all`,"
                + " idempotent producer), the local RabbitMQ (durable queue, persistent messages,"
                + " confirms), ElasticMQ in this JVM. The JVM CPU counts ElasticMQ (in this JVM) but"
                + " not the Kafka broker's JVM nor the RabbitMQ server.\n\n"
                + "Every case runs in this long-lived JVM, warmed by those rounds (**warm"
                + " JVM**); the plain JDBC relay and txoutbox with the no-op publisher also run in a"
                + " **fresh JVM** per run (%s), as a restarted relay: this JVM seeds the outbox, a"
                + " new JVM opens a pool, starts the relay, drains and reports its own CPU from just"
                + " before the relay starts, class loading and JIT compilation included. The second"
                + " table puts both side by side.",
            profile.drainEvents(),
            profile.slowEvents(),
            profile.drainRounds(),
            profile.drainRounds() == 1 ? "" : "s",
            profile.drainWarmupEvents(),
            DrainBenchmark.DEFAULT_SHAPES.replace("x", "×").replace(",", ", ")));
    List<DrainBenchmark.Case> cases = new ArrayList<>();
    for (String target : List.of("jdbc", "jdbc-message", "noop")) {
      cases.addAll(
          DrainBenchmark.cases(target, DrainBenchmark.shapes(DrainBenchmark.DEFAULT_SHAPES), true));
    }
    for (String target : List.of("ceiling", "jdbc", "jdbc-message", "per-row", "noop", "ordered")) {
      cases.addAll(DrainBenchmark.cases(target, profile.drainShapes()));
    }
    Map<String, String> notMeasured = new LinkedHashMap<>();
    Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> runs;
    try (DrainBenchmark.Targets targets = DrainBenchmark.Targets.start(List.of("noop"))) {
      for (String broker : DrainBenchmark.BROKER_TARGETS) {
        try {
          targets.add(broker);
          cases.addAll(DrainBenchmark.cases(broker, profile.drainShapes()));
        } catch (Exception | Error e) {
          log.warn("{} could not be started; its cases are left out", broker, e);
          notMeasured.put(broker, e.toString());
        }
      }
      runs =
          DrainBenchmark.measure(
              db,
              targets,
              cases,
              c ->
                  DrainBenchmark.BROKER_TARGETS.contains(c.target()) || c.target().equals("per-row")
                      ? profile.slowEvents()
                      : profile.drainEvents(),
              profile.drainRounds(),
              profile.drainWarmupEvents(),
              DrainBenchmark.WARMUP_BATCH);
    }
    notMeasured.forEach(
        (broker, error) ->
            section.text(
                "**Not measured in this run: "
                    + broker
                    + "**, its broker could not be started: `"
                    + error.replace('`', '\'')
                    + "`."));
    section.table(DrainBenchmark.table(runs));
    section.text("Fresh and warm JVM side by side:");
    section.table(DrainBenchmark.freshAndWarm(runs));
    List<String> labels = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    List<Double> jvm = new ArrayList<>();
    List<Double> pg = new ArrayList<>();
    for (Map.Entry<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> e : runs.entrySet()) {
      labels.add(e.getKey().shortLabel());
      rates.add(Figures.median(e.getValue(), DrainBenchmark.Measurement::rate));
      jvm.add(Figures.median(e.getValue(), DrainBenchmark.Measurement::jvmMicros));
      pg.add(Figures.median(e.getValue(), DrainBenchmark.Measurement::postgresMicros));
    }
    section.chart(
        new ReportSection.Chart(
            "drain-rate.png",
            "Drain rate (median events/s)",
            "events/s",
            labels,
            Map.of("events/s", rates),
            true,
            false));
    Map<String, List<Double>> cpu = new LinkedHashMap<>();
    cpu.put("JVM", jvm);
    cpu.put("PostgreSQL", pg);
    section.chart(
        new ReportSection.Chart(
            "drain-cpu.png", "Drain CPU per event", "CPU µs per event", labels, cpu, true, false));
    summarize(runs, summary);
    return section;
  }

  private static void summarize(
      Map<DrainBenchmark.Case, List<DrainBenchmark.Measurement>> runs, List<List<String>> summary) {
    CompletionMode mark = CompletionMode.MARK_PROCESSED;
    DrainBenchmark.Case small = new DrainBenchmark.Case("noop", 1, 100, mark);
    DrainBenchmark.Case large = new DrainBenchmark.Case("noop", 2, 500, mark);
    DrainBenchmark.Case deleting = new DrainBenchmark.Case("noop", 2, 500, CompletionMode.DELETE);
    List<DrainBenchmark.Case> picked =
        List.of(
            small.inFreshJvm(true),
            small,
            large.inFreshJvm(true),
            large,
            deleting.inFreshJvm(true),
            deleting,
            new DrainBenchmark.Case("noop", 2, 500, mark, Ordering.PER_AGGREGATE, 1_000),
            new DrainBenchmark.Case("kafka", 2, 500, mark),
            new DrainBenchmark.Case("rabbit", 2, 500, mark),
            new DrainBenchmark.Case("sqs", 2, 500, mark));
    for (DrainBenchmark.Case c : picked) {
      List<DrainBenchmark.Measurement> m = runs.get(c);
      DrainBenchmark.Case ref = DrainBenchmark.reference(c);
      List<DrainBenchmark.Measurement> r = runs.get(ref);
      if (m == null) {
        summary.add(List.of(summaryLabel(c), "not measured", "", ""));
        continue;
      }
      double rate = Figures.median(m, DrainBenchmark.Measurement::rate);
      summary.add(
          List.of(
              summaryLabel(c),
              Figures.rate(rate) + " events/s",
              r == null
                  ? ""
                  : Figures.ratio(rate, Figures.median(r, DrainBenchmark.Measurement::rate))
                      + " of "
                      + ref.what()
                      + " ("
                      + Figures.rate(Figures.median(r, DrainBenchmark.Measurement::rate))
                      + "/s)",
              Figures.one(Figures.median(m, DrainBenchmark.Measurement::jvmMicros))
                  + " / "
                  + Figures.one(Figures.median(m, DrainBenchmark.Measurement::postgresMicros))));
    }
  }

  /**
   * A summary row's figure, e.g. {@code drain, txoutbox, no-op publisher, 2 × 500, mark, fresh
   * JVM}.
   */
  private static String summaryLabel(DrainBenchmark.Case c) {
    return "drain, " + c.what() + ", " + c.shape() + ", " + c.jvm();
  }
}
