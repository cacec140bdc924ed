package dev.txoutbox.cli;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code java -jar target/txoutbox.jar ...} (or another txoutbox command) as a child process, its
 * output kept in files (no pipe can fill up and stall it).
 */
final class JarProcess implements AutoCloseable {

  private final Process process;
  private final Path out;
  private final Path err;

  private JarProcess(Process process, Path out, Path err) {
    this.process = process;
    this.out = out;
    this.err = err;
  }

  /** The shaded jar: the {@code txoutbox.jar} system property failsafe sets. */
  static Path jar() {
    String jar = System.getProperty("txoutbox.jar", "target/txoutbox.jar");
    Path path = Paths.get(jar);
    if (!Files.isRegularFile(path)) {
      throw new IllegalStateException(path + " is missing: run 'mvn verify', which packages it");
    }
    return path;
  }

  static JarProcess start(Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(List.of(args));
    return exec(command, env);
  }

  /**
   * Runs {@code command} (such as a distribution's {@code bin/txoutbox}) to completion, with the
   * outbox variables and {@code JAVA_HOME} and {@code JAVA_OPTS} removed from the environment
   * before {@code env} is added.
   */
  static JarProcess runCommand(List<String> command, Map<String, String> env) throws Exception {
    return runCommand(command, env, Duration.ofSeconds(60));
  }

  /** As {@link #runCommand(List, Map)}, waiting up to {@code within} for the exit. */
  static JarProcess runCommand(List<String> command, Map<String, String> env, Duration within)
      throws Exception {
    JarProcess p = exec(command, env);
    p.waitFor(within);
    return p;
  }

  private static JarProcess exec(List<String> command, Map<String, String> env) throws IOException {
    Path out = Files.createTempFile("txoutbox-out", ".txt");
    Path err = Files.createTempFile("txoutbox-err", ".txt");
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().remove("OUTBOX_JDBC_URL");
    pb.environment().remove("OUTBOX_DB_USER");
    pb.environment().remove("OUTBOX_DB_PASSWORD");
    pb.environment().remove("JAVA_HOME");
    pb.environment().remove("JAVA_OPTS");
    pb.environment().putAll(env);
    return new JarProcess(pb.start(), out, err);
  }

  /** Runs to completion. */
  static JarProcess run(Map<String, String> env, String... args) throws Exception {
    JarProcess p = start(env, args);
    p.waitFor();
    return p;
  }

  /**
   * Runs a command line and, once the relay logs on stderr that it is waiting for a database it
   * cannot reach ({@link CliRunner#WAITING_FOR_THE_DATABASE}), stops it with SIGTERM, as a relay
   * against an unreachable database waits until stopped. A run that ends by itself first (a usage
   * error, a refusal) ends as it would. Each bound is a minute.
   */
  static JarProcess runUntilWaitingForTheDatabase(Map<String, String> env, String... args)
      throws Exception {
    JarProcess p = start(env, args);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> !p.isAlive() || p.err().contains(CliRunner.WAITING_FOR_THE_DATABASE));
      p.terminate();
      p.waitFor();
      return p;
    } catch (Exception | AssertionError e) {
      p.close();
      throw e;
    }
  }

  /** Sends SIGTERM. */
  void terminate() {
    process.destroy();
  }

  /** Sends SIGKILL: no shutdown hook runs. Its output stays readable until {@link #close()}. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** Waits up to a minute for the exit code. */
  int waitFor() throws InterruptedException, IOException {
    return waitFor(Duration.ofSeconds(60));
  }

  /** Waits up to {@code within} for the exit code. */
  int waitFor(Duration within) throws InterruptedException, IOException {
    if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(
          "txoutbox did not exit within " + within.toSeconds() + " s; stderr:\n" + err());
    }
    return process.exitValue();
  }

  int exitCode() {
    return process.exitValue();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  String out() throws IOException {
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  String err() throws IOException {
    return Files.readString(err, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws IOException {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
    Files.deleteIfExists(out);
    Files.deleteIfExists(err);
  }
}
