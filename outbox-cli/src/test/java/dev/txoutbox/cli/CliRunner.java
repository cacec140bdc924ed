package dev.txoutbox.cli;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/** Runs the CLI in-process with captured output, an environment of its own and a stop switch. */
final class CliRunner {

  /** What the relay logs when it starts waiting for a database it cannot reach. */
  static final String WAITING_FOR_THE_DATABASE = "waiting for it";

  private static final Duration WAIT = Duration.ofSeconds(60);

  /**
   * One run's outcome, with the messages {@link RelayCommand} logged during a run of {@link
   * #runUntilWaitingForTheDatabase} (empty after {@link #run}).
   */
  record Result(int exitCode, String out, String err, List<String> relayLog) {
    List<String> errLines() {
      return err.lines().toList();
    }

    /** The relay's messages that contain {@code text}. */
    List<String> relayLogLines(String text) {
      return relayLog.stream().filter(m -> m.contains(text)).toList();
    }
  }

  private final Map<String, String> env = new HashMap<>();
  private final List<String> prefix = new ArrayList<>();
  final CountDownLatch stop = new CountDownLatch(1);

  /** A runner whose command lines start with the options that reach {@code db}'s schema. */
  static CliRunner forDatabase(TestDatabase db) {
    return new CliRunner()
        .withArgs(
            "--jdbc-url", TestDatabase.jdbcUrl(), "--user", "postgres", "--schema", db.schema());
  }

  CliRunner env(String name, String value) {
    env.put(name, value);
    return this;
  }

  /** Arguments put before every command line, such as the database options. */
  CliRunner withArgs(String... args) {
    prefix.addAll(List.of(args));
    return this;
  }

  Result run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(prefix);
    all.addAll(List.of(args));
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code =
          Cli.run(
              new CliContext(env, o, e, t -> stop.await(t.toNanos(), TimeUnit.NANOSECONDS)),
              all.toArray(String[]::new));
    }
    return new Result(
        code,
        out.toString(StandardCharsets.UTF_8),
        err.toString(StandardCharsets.UTF_8),
        List.of());
  }

  /**
   * Runs the command line as {@link #run} does, and once the relay logs that it is {@linkplain
   * #WAITING_FOR_THE_DATABASE waiting for the database} stops it as SIGTERM would: a relay against
   * a database it cannot reach waits for it until stopped. A run that ends by itself first (a usage
   * error, a refusal) is returned as it ended. Each bound is a minute.
   */
  Result runUntilWaitingForTheDatabase(String... args) throws Exception {
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger relayLogger = (Logger) LoggerFactory.getLogger(RelayCommand.class);
    relayLogger.addAppender(log);
    try {
      CompletableFuture<Result> run =
          CompletableFuture.supplyAsync(
              () -> run(args), task -> new Thread(task, "txoutbox-cli-run").start());
      await()
          .atMost(WAIT)
          .until(() -> run.isDone() || !messages(log, WAITING_FOR_THE_DATABASE).isEmpty());
      stop.countDown();
      Result r = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      return new Result(r.exitCode(), r.out(), r.err(), messages(log, ""));
    } finally {
      relayLogger.detachAppender(log);
    }
  }

  private static List<String> messages(ListAppender<ILoggingEvent> log, String text) {
    synchronized (log) {
      return log.list.stream()
          .map(ILoggingEvent::getFormattedMessage)
          .filter(m -> m.contains(text))
          .toList();
    }
  }
}
