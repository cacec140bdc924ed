package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The writer's cost in a fresh JVM and once warm: each case of {@link WriterBenchmark} runs in a
 * new JVM of its own (as a freshly started application has), measured over its first {@code
 * --fresh-seconds} (default 30) of writes, then, after {@code --warmup-seconds} more (default 20),
 * over {@code --warm-seconds} (default 20). Cases are interleaved over {@code --rounds} (default
 * 2); the table gives medians: tx/s, the JVM process's CPU per transaction (JIT compilation and GC
 * included: the figure that counts in a fresh JVM), the writer threads' own CPU in the second
 * write, and for each case its extra CPU over the business row alone as a ratio to the plain JDBC
 * insert's. With {@code --jars before=OLD.jar,after=NEW.jar} the {@code outbox} case runs once per
 * named outbox-core jar, in place of the class path's, so a change is measured against the code
 * before it in the same run. Not part of the test run:
 *
 * <pre>
 * mvn -B -q -o -Pbenchmarks package -pl benchmarks -am -DskipTests
 * java -cp 'benchmarks/target/benchmarks.jar:benchmarks/target/lib/*' dev.txoutbox.bench.WriterFreshJvm \
 *     [--threads 8] [--rounds 2] [--cases alone,jdbc,outbox] [--jars before=old.jar,after=new.jar]
 * </pre>
 *
 * <p>Same database and schemas as {@link WriterBenchmark}, created once by this process before the
 * first child starts.
 */
public final class WriterFreshJvm {

  private WriterFreshJvm() {}

  public static void main(String[] args) throws Exception {
    ChildJvm.main(args, WriterFreshJvm::drive, WriterFreshJvm::child);
  }

  /** One case in this JVM: prints the fresh and the warm run on one line. */
  private static void child(Map<String, String> options) throws Exception {
    WriterBenchmark.Case kase = WriterBenchmark.Case.of(options.get("child"));
    int threads = Integer.parseInt(options.get("threads"));
    String url = BenchDatabase.url(WriterBenchmark.DATABASE);
    try (HikariDataSource pool =
        WriterBenchmark.pool(url, BenchDatabase.user(), BenchDatabase.password(), threads + 2)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      CpuMeter cpu = new CpuMeter(dsl);
      WriterBenchmark.truncate(dsl);
      WriterBenchmark.Writers writers = new WriterBenchmark.Writers(dsl, kase);
      WriterBenchmark.Run fresh = writers.flatOut(threads, seconds(options, "fresh-seconds"), cpu);
      writers.flatOut(threads, seconds(options, "warmup-seconds"), cpu);
      WriterBenchmark.Run warm = writers.flatOut(threads, seconds(options, "warm-seconds"), cpu);
      ChildJvm.result(line(fresh) + " " + line(warm));
    }
  }

  private static Duration seconds(Map<String, String> options, String name) {
    return Duration.ofSeconds(Long.parseLong(options.get(name)));
  }

  private static String line(WriterBenchmark.Run r) {
    return r.commits()
        + " "
        + r.seconds()
        + " "
        + r.cpu().jvmNanos()
        + " "
        + r.cpu().postgresNanos()
        + " "
        + r.secondWriteCpuNanos();
  }

  /** Figures of one child: fresh, then warm; each commits, seconds, JVM, PostgreSQL, second. */
  private record Child(double[] fresh, double[] warm, String load) {}

  private static void drive(Map<String, String> options) throws Exception {
    String threads = options.getOrDefault("threads", "8");
    int rounds = Integer.parseInt(options.getOrDefault("rounds", "2"));
    List<String> cases = new ArrayList<>();
    for (String c : options.getOrDefault("cases", "alone,jdbc,outbox").split(",")) {
      WriterBenchmark.Case.of(c);
      cases.add(c);
    }
    Map<String, String> jars = new LinkedHashMap<>();
    if (options.containsKey("jars") && cases.contains("outbox")) {
      int at = cases.indexOf("outbox");
      cases.remove(at);
      for (String named : options.get("jars").split(",")) {
        String[] nameAndJar = named.split("=", 2);
        jars.put(nameAndJar[0], nameAndJar[1]);
        cases.add(at++, "outbox@" + nameAndJar[0]);
      }
    }
    String url = BenchDatabase.url(WriterBenchmark.DATABASE);
    try (BenchDatabase db = new BenchDatabase(url, BenchDatabase.user(), BenchDatabase.password());
        HikariDataSource pool =
            WriterBenchmark.pool(url, BenchDatabase.user(), BenchDatabase.password(), 2)) {
      WriterBenchmark.createSchemas(pool, DSL.using(pool, SQLDialect.POSTGRES));
    }
    String startLoad = MachineInfo.currentLoadAverage();
    Map<String, List<Child>> runs = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (String c : cases) {
        int at = c.indexOf('@');
        String classPath =
            at < 0
                ? ChildJvm.classPath()
                : ChildJvm.classPathReplacing("outbox-core-", jars.get(c.substring(at + 1)));
        Child child =
            runChild(
                classPath,
                at < 0 ? c : c.substring(0, at),
                threads,
                options.getOrDefault("fresh-seconds", "30"),
                options.getOrDefault("warmup-seconds", "20"),
                options.getOrDefault("warm-seconds", "20"));
        System.err.printf(
            "round %d %s: fresh %.1f JVM µs/tx, warm %.1f; load %s%n",
            round + 1, c, jvm(child.fresh()), jvm(child.warm()), child.load());
        runs.computeIfAbsent(c, k -> new ArrayList<>()).add(child);
      }
    }
    System.out.println(table(runs, threads, rounds));
    System.out.println(
        "load average at start "
            + startLoad
            + "; at end "
            + MachineInfo.currentLoadAverage()
            + "; "
            + Runtime.getRuntime().availableProcessors()
            + " cores; JDK "
            + Runtime.version());
  }

  private static Child runChild(
      String classPath, String kase, String threads, String fresh, String warmup, String warm)
      throws Exception {
    String result =
        ChildJvm.run(
            classPath,
            WriterFreshJvm.class,
            "case " + kase,
            List.of(
                "--child",
                kase,
                "--threads",
                threads,
                "--fresh-seconds",
                fresh,
                "--warmup-seconds",
                warmup,
                "--warm-seconds",
                warm));
    double[] all = Arrays.stream(result.split(" ")).mapToDouble(Double::parseDouble).toArray();
    return new Child(
        Arrays.copyOfRange(all, 0, 5),
        Arrays.copyOfRange(all, 5, 10),
        MachineInfo.currentLoadAverage());
  }

  private static double rate(double[] f) {
    return f[0] / f[1];
  }

  private static double jvm(double[] f) {
    return f[2] / 1e3 / f[0];
  }

  private static double second(double[] f) {
    return f[4] / 1e3 / f[0];
  }

  private static double median(
      List<Child> runs, boolean fresh, java.util.function.ToDoubleFunction<double[]> f) {
    return Figures.median(
        runs.stream().mapToDouble(c -> f.applyAsDouble(fresh ? c.fresh() : c.warm())).toArray());
  }

  private static String table(Map<String, List<Child>> runs, String threads, int rounds) {
    StringBuilder out =
        new StringBuilder(
            String.format(
                "%s writer threads, a fresh JVM per case, medians of %d interleaved rounds. Extra ="
                    + " the case's CPU per transaction minus the business row alone's; ratio = that"
                    + " extra ÷ the plain JDBC insert's.%n%n"
                    + "| case | JVM | tx/s | JVM µs/tx | extra JVM µs/tx | ratio |"
                    + " second write, thread µs | ratio |%n"
                    + "|---|---|---:|---:|---:|---:|---:|---:|%n",
                threads, rounds));
    for (boolean fresh : new boolean[] {true, false}) {
      List<Child> alone = runs.get("alone");
      List<Child> jdbc = runs.get("jdbc");
      for (Map.Entry<String, List<Child>> e : runs.entrySet()) {
        List<Child> rs = e.getValue();
        double jvm = median(rs, fresh, WriterFreshJvm::jvm);
        double second = median(rs, fresh, WriterFreshJvm::second);
        String extra = "";
        String ratio = "";
        String secondRatio = "";
        if (alone != null) {
          double aloneJvm = median(alone, fresh, WriterFreshJvm::jvm);
          extra = String.format("%.1f", jvm - aloneJvm);
          if (jdbc != null) {
            double jdbcExtra = median(jdbc, fresh, WriterFreshJvm::jvm) - aloneJvm;
            ratio = String.format("%.2f×", (jvm - aloneJvm) / jdbcExtra);
            secondRatio =
                String.format("%.2f×", second / median(jdbc, fresh, WriterFreshJvm::second));
          }
        }
        out.append(
            String.format(
                "| %s | %s | %.0f | %.1f | %s | %s | %.1f | %s |%n",
                e.getKey(),
                fresh ? "fresh" : "warm",
                median(rs, fresh, WriterFreshJvm::rate),
                jvm,
                extra,
                ratio,
                second,
                secondRatio));
      }
    }
    return out.toString();
  }
}
