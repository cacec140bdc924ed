package dev.txoutbox.cli;

import dev.txoutbox.testing.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** Runs the CLI in-process with captured output, an environment of its own and a stop switch. */
final class CliRunner {

  /** One run's outcome. */
  record Result(int exitCode, String out, String err) {
    List<String> errLines() {
      return err.lines().toList();
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
      code = Cli.run(new CliContext(env, o, e, stop::await), all.toArray(String[]::new));
    }
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }
}
