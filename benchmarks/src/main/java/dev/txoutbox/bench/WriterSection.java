package dev.txoutbox.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The report's writer section, from {@link WriterBenchmark}'s measurements. Stateless. */
final class WriterSection {

  private static final int[] THREADS = {1, 4, 8};

  private WriterSection() {}

  static ReportSection run(ReportProfile profile, List<List<String>> summary) throws Exception {
    List<WriterBenchmark.Case> cases =
        List.of(
            WriterBenchmark.Case.ALONE,
            WriterBenchmark.Case.PLAIN_INSERT,
            WriterBenchmark.Case.OUTBOX,
            WriterBenchmark.Case.OUTBOX_NOTIFY);
    WriterBenchmark.Measured m =
        WriterBenchmark.measure(
            THREADS,
            cases,
            profile.writerLength(),
            profile.writerRounds(),
            profile.writerWarmup(),
            false);
    ReportSection section = new ReportSection("2. Writer overhead");
    section.text(
        String.format(
            "Writer threads as fast as they can, each transaction one business row in a small"
                + " `orders` table and then nothing, a plain jOOQ insert of the same outbox-shaped"
                + " row (same payload and `traceparent` header) into a copy of the outbox table,"
                + " `outbox.record(...)`, or `outbox.record(...)` into an outbox with the opt-in"
                + " NOTIFY trigger. %d s per case in %d interleaved round%s after a %d s warm-up of"
                + " each, on a database of its own (`%s`) so that its PostgreSQL CPU counts only"
                + " these writers. Latency is the whole transaction, commit included. The"
                + " reference of each row is the business row alone and the plain second row of"
                + " the same writer count.",
            profile.writerLength().toSeconds(),
            profile.writerRounds(),
            profile.writerRounds() == 1 ? "" : "s",
            profile.writerWarmup().toSeconds(),
            WriterBenchmark.DATABASE));
    List<List<String>> rows = new ArrayList<>();
    Map<String, List<Double>> chart = new LinkedHashMap<>();
    for (WriterBenchmark.Case c : cases) {
      chart.put(c.label, new ArrayList<>());
    }
    for (int threads : THREADS) {
      List<WriterBenchmark.Run> alone =
          m.runs().get(threads + "/" + WriterBenchmark.Case.ALONE.key);
      List<WriterBenchmark.Run> plain =
          m.runs().get(threads + "/" + WriterBenchmark.Case.PLAIN_INSERT.key);
      double aloneRate = rate(alone);
      double plainRate = rate(plain);
      double aloneJvm = Figures.median(alone, WriterBenchmark::jvmMicros);
      for (WriterBenchmark.Case c : cases) {
        List<WriterBenchmark.Run> rs = m.runs().get(threads + "/" + c.key);
        double rate = rate(rs);
        double jvm = Figures.median(rs, WriterBenchmark::jvmMicros);
        chart.get(c.label).add(rate);
        rows.add(
            List.of(
                threads + " × " + c.label,
                Figures.rate(rate),
                c == WriterBenchmark.Case.ALONE ? "" : Figures.ratio(rate, aloneRate),
                c.ordinal() <= WriterBenchmark.Case.PLAIN_INSERT.ordinal()
                    ? ""
                    : Figures.ratio(rate, plainRate),
                Figures.two(WriterBenchmark.millis(rs, 0.50)),
                Figures.two(WriterBenchmark.millis(rs, 0.99)),
                Figures.one(jvm),
                c == WriterBenchmark.Case.ALONE ? "" : String.format("%+.1f", jvm - aloneJvm),
                Figures.one(Figures.median(rs, WriterBenchmark::pgMicros)),
                Long.toString(rs.stream().mapToLong(WriterBenchmark.Run::failed).sum())));
      }
      summary.add(
          List.of(
              "writer, " + threads + " thread" + (threads == 1 ? "" : "s") + ", + outbox.record",
              Figures.rate(rate(m.runs().get(threads + "/" + WriterBenchmark.Case.OUTBOX.key)))
                  + " tx/s",
              Figures.ratio(
                      rate(m.runs().get(threads + "/" + WriterBenchmark.Case.OUTBOX.key)),
                      plainRate)
                  + " of a plain second insert ("
                  + Figures.rate(plainRate)
                  + " tx/s)",
              Figures.one(
                      Figures.median(
                          m.runs().get(threads + "/" + WriterBenchmark.Case.OUTBOX.key),
                          WriterBenchmark::jvmMicros))
                  + " / "
                  + Figures.one(
                      Figures.median(
                          m.runs().get(threads + "/" + WriterBenchmark.Case.OUTBOX.key),
                          WriterBenchmark::pgMicros))
                  + " per tx"));
    }
    section.table(
        new ReportSection.Table(
            List.of(
                "writers × case",
                "tx/s (median)",
                "vs business row alone",
                "vs + plain second row",
                "p50 ms",
                "p99 ms",
                "JVM CPU µs/tx",
                "JVM µs/tx over alone",
                "PostgreSQL CPU µs/tx",
                "failed tx"),
            rows));
    section.chart(
        new ReportSection.Chart(
            "writer-rate.png",
            "Writer transactions per second",
            "tx/s",
            Arrays.stream(THREADS).mapToObj(t -> t + " writer" + (t == 1 ? "" : "s")).toList(),
            chart,
            false,
            false));
    return section;
  }

  private static double rate(List<WriterBenchmark.Run> runs) {
    return Figures.median(runs, r -> r.commits() / r.seconds());
  }
}
