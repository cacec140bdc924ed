package dev.txoutbox.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * What the report was measured on: cores, CPU model, memory, JDK, the PostgreSQL server's version
 * and the settings that move its figures, the git commit and the load average.
 */
record MachineInfo(
    int cores,
    String cpuModel,
    String memory,
    String jdk,
    String os,
    String postgresVersion,
    Map<String, String> postgresSettings,
    String gitCommit,
    String loadAverage) {

  /** The PostgreSQL settings the report names. */
  static final List<String> SETTINGS =
      List.of(
          "shared_buffers",
          "synchronous_commit",
          "fsync",
          "wal_level",
          "max_connections",
          "work_mem",
          "checkpoint_timeout",
          "max_wal_size");

  /** Reads this machine, this JVM and the server behind {@code dsl}. */
  static MachineInfo collect(DSLContext dsl) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String name : SETTINGS) {
      settings.put(name, setting(dsl, name));
    }
    return new MachineInfo(
        Runtime.getRuntime().availableProcessors(),
        procField("/proc/cpuinfo", "model name"),
        readMemory(),
        System.getProperty("java.vm.vendor") + " " + Runtime.version(),
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"),
        setting(dsl, "server_version"),
        settings,
        readGitCommit(),
        currentLoadAverage());
  }

  static String setting(DSLContext dsl, String name) {
    return dsl.fetchValue(DSL.function("current_setting", String.class, DSL.inline(name)));
  }

  /** The Markdown lines of the machine's description. */
  List<String> markdown() {
    List<String> lines = new ArrayList<>();
    lines.add("- Machine: " + cores + " cores (" + cpuModel + "), " + memory + " RAM, " + os);
    lines.add("- JDK: " + jdk);
    StringBuilder pg = new StringBuilder("- PostgreSQL " + postgresVersion + ":");
    postgresSettings.forEach((k, v) -> pg.append(" `").append(k).append("=").append(v).append('`'));
    lines.add(pg.toString());
    lines.add("- Git commit: `" + gitCommit + "`");
    lines.add("- Load average at start: " + loadAverage);
    return lines;
  }

  private static String procField(String file, String field) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(field)) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // not Linux: reported as unknown
    }
    return "unknown";
  }

  private static String readMemory() {
    String total = procField("/proc/meminfo", "MemTotal");
    if (total.endsWith("kB")) {
      long kb = Long.parseLong(total.replace("kB", "").trim());
      return String.format("%.1f GiB", kb / 1024.0 / 1024.0);
    }
    return total;
  }

  static String currentLoadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  /** {@code git describe}-like: the commit, with {@code -dirty} if the tree has changes. */
  private static String readGitCommit() {
    String head = git("rev-parse", "HEAD");
    String status = git("status", "--porcelain", "--untracked-files=no");
    return head.isEmpty() ? "unknown" : head + (status.isEmpty() ? "" : "-dirty");
  }

  private static String git(String... args) {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }
}
