package dev.txoutbox.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The latency benchmark's writers in another process: {@link LatencyBenchmark#writeSteadily} with
 * the wall clock ({@link #wallMicros()}), so that the relay's process can compare the commit times
 * with its own first-seen times on the same machine. Started by {@link #start} from the benchmark
 * with the benchmark's class path; talks over its standard streams (lines starting {@value
 * #PREFIX}): {@code measuring} after the warm-up, {@code written <file>} when the steady part's
 * {@code id micros} lines are in the file; then it waits for its standard input to close, so that
 * its database backends are still there when the relay's process reads their CPU time.
 */
public final class RemoteWriters {

  static final String PREFIX = "remote-writers ";

  private RemoteWriters() {}

  /** Microseconds since the epoch by the wall clock ({@link Instant#now()}'s precision). */
  static long wallMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  /**
   * Arguments: url user schema rate warmup-ms length-ms file; the password from {@code
   * OUTBOX_BENCH_DB_PASSWORD}, never on the command line.
   */
  public static void main(String[] args) throws Exception {
    // A benchmark that dies (SIGTERM, a failure) must not leave its writers running.
    ProcessHandle.current()
        .parent()
        .ifPresent(parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(2)));
    try (HikariDataSource pool =
        BenchDatabase.pool(
            args[0],
            args[1],
            BenchDatabase.password(),
            LatencyBenchmark.WRITERS + 1,
            "remote-writers")) {
      Outbox outbox = Outbox.builder().schema(args[2]).build();
      LatencyBenchmark.Steady steady =
          LatencyBenchmark.writeSteadily(
              DSL.using(pool, SQLDialect.POSTGRES),
              outbox,
              Integer.parseInt(args[3]),
              Duration.ofMillis(Long.parseLong(args[4])),
              Duration.ofMillis(Long.parseLong(args[5])),
              RemoteWriters::wallMicros,
              () -> say("measuring"));
      Path file = Path.of(args[6]);
      try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
        steady.committedAt().forEach((id, micros) -> out.println(id + " " + micros));
      }
      say("written " + steady.seconds() + " " + steady.failed());
      System.in.transferTo(java.io.OutputStream.nullOutputStream());
    }
    System.exit(0);
  }

  private static void say(String line) {
    System.out.println(PREFIX + line);
    System.out.flush();
  }

  /** The steady part as the parent reads it: commit micros by id, seconds, failed writes. */
  static LatencyBenchmark.Steady read(Path file, String writtenLine) throws IOException {
    Map<UUID, Long> committed = new HashMap<>();
    for (String line : Files.readAllLines(file)) {
      int space = line.indexOf(' ');
      committed.put(
          UUID.fromString(line.substring(0, space)), Long.parseLong(line.substring(space + 1)));
    }
    String[] f = writtenLine.split(" ");
    return new LatencyBenchmark.Steady(committed, Double.parseDouble(f[1]), Long.parseLong(f[2]));
  }

  /** A running child: waits for its lines, then lets it exit. */
  static final class Child implements AutoCloseable {
    private final Process process;
    private final BufferedReader lines;

    private Child(Process process) {
      this.process = process;
      this.lines =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Waits for the child's line starting {@code word} and returns it without the prefix. */
    String await(String word) throws IOException {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.startsWith(PREFIX + word)) {
          return line.substring(PREFIX.length());
        }
      }
      throw new IOException("the writers' process ended before '" + word + "'");
    }

    @Override
    public void close() throws InterruptedException {
      try {
        process.getOutputStream().close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  /**
   * Starts the writers in a child JVM of this JVM's class path, standard error inherited, writing
   * into {@code schema} of {@code url} at {@code rate} events/s.
   */
  static Child start(
      String url,
      String user,
      String password,
      String schema,
      int rate,
      Duration warmup,
      Duration length,
      Path file)
      throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
            ChildJvm.command(
                ChildJvm.classPath(),
                List.of(),
                RemoteWriters.class,
                List.of(
                    url,
                    user,
                    schema,
                    Integer.toString(rate),
                    Long.toString(warmup.toMillis()),
                    Long.toString(length.toMillis()),
                    file.toString())));
    pb.environment().put("OUTBOX_BENCH_DB_PASSWORD", password);
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    return new Child(pb.start());
  }
}
