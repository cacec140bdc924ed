package dev.txoutbox.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * CPU time of this JVM and of the PostgreSQL backends serving the benchmark's database, read from
 * the JVM and from {@code /proc/<pid>/stat} (user + system time, in the kernel's clock ticks of 10
 * ms). PostgreSQL must run on the same machine; elsewhere its share reads as zero.
 */
final class CpuMeter {

  /** Linux's USER_HZ on every common platform. */
  private static final long NANOS_PER_TICK = 10_000_000L;

  private final DSLContext dsl;
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** CPU nanoseconds so far: this JVM's, and the backends' of the database. */
  record Sample(long jvmNanos, long postgresNanos) {
    Sample minus(Sample before) {
      return new Sample(jvmNanos - before.jvmNanos, postgresNanos - before.postgresNanos);
    }

    Sample plus(Sample other) {
      return new Sample(jvmNanos + other.jvmNanos, postgresNanos + other.postgresNanos);
    }
  }

  /**
   * Every backend seen so far by pid, with the most CPU it was seen to have used: a backend that
   * ends between two samples (a pool retiring a connection) keeps its share instead of taking it
   * out of the total, which made a long run's deltas negative. Only the CPU it used after its last
   * sample is lost.
   */
  private final Map<Integer, Long> seen = new ConcurrentHashMap<>();

  CpuMeter(DSLContext dsl) {
    this.dsl = dsl;
  }

  Sample sample() {
    // pg_stat_activity is a catalog view, outside the generated model.
    List<Integer> pids =
        dsl.select(DSL.field(DSL.name("pid"), Integer.class))
            .from(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")))
            .where(DSL.field(DSL.name("datname")).eq(DSL.currentCatalog()))
            .fetch(0, Integer.class);
    for (int pid : pids) {
      seen.merge(pid, ticks(pid), Math::max);
    }
    long ticks = 0;
    for (long t : seen.values()) {
      ticks += t;
    }
    return new Sample(os.getProcessCpuTime(), ticks * NANOS_PER_TICK);
  }

  /** utime + stime of a process, or 0 if it is gone or not readable. */
  private static long ticks(int pid) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      // Fields after the command name, which is in parentheses and may hold spaces.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /**
   * CPU nanoseconds of this JVM's JIT compiler threads so far ({@code C1 CompilerThread…}, {@code
   * C2 CompilerThread…}), from {@code /proc/self/task}: threads the JVM hides from its own thread
   * beans. 0 where there is no {@code /proc}.
   */
  static long compilerNanos() {
    long nanos = 0;
    for (Map.Entry<String, Long> e : threadNanos().entrySet()) {
      if (e.getKey().startsWith("C# CompilerThre")) { // C1 and C2, digits left out
        nanos += e.getValue();
      }
    }
    return nanos;
  }

  /**
   * CPU nanoseconds so far of this JVM's threads that are still alive, by thread name with its
   * digits left out (so a pool's threads add up), from {@code /proc/self/task}; empty where there
   * is no {@code /proc}. A thread that ended since an earlier call takes its share with it.
   */
  static Map<String, Long> threadNanos() {
    Map<String, Long> byName = new java.util.TreeMap<>();
    try (java.util.stream.Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String comm = Files.readString(task.resolve("comm")).strip().replaceAll("[0-9]+", "#");
          String stat = Files.readString(task.resolve("stat"));
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
          byName.merge(comm, ticks * NANOS_PER_TICK, Long::sum);
        } catch (IOException | RuntimeException e) {
          // the thread ended between the listing and the read
        }
      }
    } catch (IOException e) {
      return Map.of();
    }
    return byName;
  }
}
