package dev.txoutbox.bench;

import dev.txoutbox.testing.LogicalServer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The benchmark report: runs the drain, writer, latency and backlog benchmarks in one process and
 * writes {@code REPORT.md}, its PNG charts and a paste-ready {@code summary.md} (the README's
 * performance table), with the machine, the command and the git commit. Not part of the test run:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -Djava.awt.headless=true -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' \
 *     dev.txoutbox.bench.Report [--quick] [--sections drain,writer,latency,backlog,wal] [--out DIR] \
 *     [--tuning-log benchmarks/tuning-log.md]
 * </pre>
 *
 * <p>By default the full report (about 20–25 minutes on a quiet 2-core machine) into {@value
 * #DEFAULT_OUT}; {@code --quick} is a smoke run of the same code paths with small sizes (about 4
 * minutes) into {@value #QUICK_OUT}, whose figures mean little. Run from the repository's root (the
 * tuning log and git are read from there), with PostgreSQL and RabbitMQ as for {@link
 * DrainBenchmark}. The {@code wal} section ({@link WalSection}) starts a PostgreSQL server of its
 * own with {@code wal_level=logical} ({@link LogicalServer}); {@code --sections wal} runs it alone
 * (about 11 minutes full, 2 quick); {@code -Dtxoutbox.bench.walParts=drain,latency,writer} picks
 * its parts, {@code -Dtxoutbox.bench.walDrainEvents=N} the drain's size and {@code
 * -Dtxoutbox.bench.walSettings=synchronous_commit=off} settings of its server other than the shared
 * server's (the section names them).
 */
public final class Report {

  private static final Logger log = LoggerFactory.getLogger(Report.class);

  /** Where the full report goes, relative to the repository's root. */
  static final String DEFAULT_OUT = "docs/benchmarks";

  /** Where a quick run goes: under the build's output, never committed. */
  static final String QUICK_OUT = "benchmarks/target/report-quick";

  static final String TUNING_LOG = "benchmarks/tuning-log.md";

  static final List<String> SECTIONS = List.of("drain", "writer", "latency", "backlog", "wal");

  static final String USAGE =
      "Report [--quick] [--sections "
          + String.join(",", SECTIONS)
          + "] [--out DIR] [--tuning-log FILE]\n"
          + "  full report into "
          + DEFAULT_OUT
          + " (about 20-25 minutes); --quick: a smoke run into "
          + QUICK_OUT
          + " (about 4 minutes)";

  static final String CLASS_PATH = "'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*'";

  private Report() {}

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    if (List.of(args).contains("--help")) {
      System.out.println(USAGE);
      return;
    }
    try {
      run(args);
    } catch (Exception | Error e) {
      log.error("report failed", e);
      System.exit(1); // broker client threads must not keep a failed run alive
    }
    System.exit(0); // nor a finished one
  }

  /** The parsed command line. */
  record Options(
      ReportProfile profile, List<String> sections, Path out, Path tuningLog, String command) {

    static Options parse(String[] args) {
      boolean quick = false;
      List<String> sections = SECTIONS;
      String out = null;
      String tuningLog = TUNING_LOG;
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--quick" -> quick = true;
          case "--sections" -> sections = List.of(value(args, ++i, "--sections").split(","));
          case "--out" -> out = value(args, ++i, "--out");
          case "--tuning-log" -> tuningLog = value(args, ++i, "--tuning-log");
          default ->
              throw new IllegalArgumentException(
                  "unknown option '" + args[i] + "'; usage: " + USAGE);
        }
      }
      for (String s : sections) {
        if (!SECTIONS.contains(s)) {
          throw new IllegalArgumentException(
              "--sections takes " + String.join(", ", SECTIONS) + " but had '" + s + "'");
        }
      }
      return new Options(
          quick ? ReportProfile.QUICK : ReportProfile.FULL,
          sections,
          Path.of(out != null ? out : quick ? QUICK_OUT : DEFAULT_OUT),
          Path.of(tuningLog),
          "java -Djava.awt.headless=true -cp "
              + CLASS_PATH
              + " "
              + Report.class.getName()
              + (args.length == 0 ? "" : " " + String.join(" ", args)));
    }

    private static String value(String[] args, int i, String option) {
      if (i >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      return args[i];
    }
  }

  private static void run(String[] args) throws Exception {
    Options options = Options.parse(args);
    Instant started = Instant.now();
    List<ReportSection> sections = new ArrayList<>();
    List<List<String>> summary = new ArrayList<>();
    MachineInfo machine;
    try (BenchDatabase db = BenchDatabase.fromEnvironment()) {
      machine = MachineInfo.collect(db.dsl());
      log.info(
          "report ({}) of {} into {}", options.profile().name(), options.sections(), options.out());
      for (String s : options.sections()) {
        long t0 = System.nanoTime();
        sections.add(
            switch (s) {
              case "drain" -> DrainSection.run(options.profile(), db, summary);
              case "writer" -> WriterSection.run(options.profile(), summary);
              case "latency" -> LatencySection.run(options.profile(), summary);
              case "backlog" -> BacklogSection.run(options.profile(), summary);
              case "wal" -> WalSection.run(options.profile(), db, summary);
              default -> throw new IllegalArgumentException("unknown section " + s);
            });
        log.info("section {} took {} s", s, (System.nanoTime() - t0) / 1_000_000_000);
      }
    }
    sections.add(tuningLog(options.tuningLog()));
    Duration took = Duration.between(started, Instant.now()).truncatedTo(ChronoUnit.SECONDS);
    Path report =
        ReportWriter.write(
            options.out(),
            header(options, machine, started, took),
            new ReportSection.Table(SUMMARY_COLUMNS, summary),
            sections);
    log.info("report written to {} in {}", report, took);
  }

  static final List<String> SUMMARY_COLUMNS =
      List.of("figure", "txoutbox", "reference, same run", "CPU µs per event, JVM / PostgreSQL");

  /** The report's title, how it was made and on what. */
  static String header(Options options, MachineInfo machine, Instant started, Duration took) {
    StringBuilder out = new StringBuilder("# Benchmark report\n\n");
    out.append(
        "Generated by `dev.txoutbox.bench.Report` (module `benchmarks`); do not edit by hand: edit"
            + " the benchmarks, or `"
            + TUNING_LOG
            + "` for the tuning log, and run it again.\n\n");
    if (options.profile() == ReportProfile.QUICK) {
      out.append(
          "**A `--quick` smoke run: small sizes and short runs, figures not meant to be"
              + " quoted.**\n\n");
    }
    out.append("```bash\nmvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests\n")
        .append(options.command())
        .append("\n```\n\n");
    out.append("- Started ")
        .append(started.truncatedTo(ChronoUnit.SECONDS))
        .append(", took ")
        .append(took.toString().substring(2).toLowerCase())
        .append(", profile `")
        .append(options.profile().name())
        .append("`, sections ")
        .append(String.join(", ", options.sections()))
        .append('\n');
    machine.markdown().forEach(l -> out.append(l).append('\n'));
    out.append("- JVM options: `")
        .append(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()))
        .append("`\n\n");
    out.append(
        "Every figure comes from this run; each ratio compares two figures of the same run. On a"
            + " shared machine rates drift between runs, the CPU per event much less. CPU is counted"
            + " in the kernel's 10 ms ticks (PostgreSQL) and the JVM's process CPU time, so a"
            + " figure over few events or polls is coarse.\n");
    return out.toString();
  }

  /** The hand-maintained tuning log, included verbatim under its own heading. */
  static ReportSection tuningLog(Path file) throws IOException {
    ReportSection section = new ReportSection("6. Tuning log");
    if (!Files.exists(file)) {
      return section.text("No tuning log at `" + file + "`.");
    }
    return section.text(
        "From `"
            + TUNING_LOG
            + "` (maintained by hand), included verbatim:\n\n"
            + Files.readString(file));
  }
}
