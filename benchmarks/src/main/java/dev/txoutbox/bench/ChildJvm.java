package dev.txoutbox.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One case of a benchmark in a new JVM of its own (as a freshly started relay or application has):
 * the child runs the benchmark's main class with the given arguments and prints its figures on one
 * line starting with {@value #RESULT}; the parent reads that line. The child's standard error is
 * discarded. Stateless.
 */
final class ChildJvm {

  /** The prefix of the child's one result line. */
  static final String RESULT = "RESULT ";

  private ChildJvm() {}

  /** A benchmark's side of a run: the parent driving the children, or one child. */
  interface Side {
    void run(Map<String, String> options) throws Exception;
  }

  /**
   * A benchmark's {@code main}: parses {@code args} ({@link DrainBenchmark#parse}), runs {@code
   * child} if they hold {@code --child}, else {@code parent}, then exits, so that no pool or relay
   * thread keeps a finished run alive.
   */
  static void main(String[] args, Side parent, Side child) throws Exception {
    Map<String, String> options = DrainBenchmark.parse(args);
    if (options.containsKey("child")) {
      child.run(options);
    } else {
      parent.run(options);
    }
    System.exit(0);
  }

  /** Prints {@code figures} as the child's result line. */
  static void result(String figures) {
    System.out.println(RESULT + figures);
  }

  /** This JVM's class path. */
  static String classPath() {
    return System.getProperty("java.class.path");
  }

  /** This JVM's class path without the jars whose file name {@code drop} accepts. */
  static String classPathWithout(Predicate<String> drop) {
    List<String> entries = new ArrayList<>();
    for (String e : classPath().split(File.pathSeparator)) {
      if (!drop.test(new File(e).getName())) {
        entries.add(e);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /**
   * This JVM's class path with the jar whose file name starts with {@code prefix} replaced by
   * {@code jar}.
   *
   * @throws IllegalStateException if the class path holds no such jar
   */
  static String classPathReplacing(String prefix, String jar) {
    List<String> entries = new ArrayList<>();
    boolean replaced = false;
    for (String e : classPath().split(File.pathSeparator)) {
      String name = new File(e).getName();
      if (name.startsWith(prefix) && name.endsWith(".jar")) {
        entries.add(jar);
        replaced = true;
      } else {
        entries.add(e);
      }
    }
    if (!replaced) {
      throw new IllegalStateException(
          "the class path must hold a jar named " + prefix + "* but did not");
    }
    return String.join(File.pathSeparator, entries);
  }

  /**
   * The command line of a new JVM of this JVM's runtime running {@code main} with {@code args} on
   * {@code classPath}, with {@code jvmOptions} before the class path.
   */
  static List<String> command(
      String classPath, List<String> jvmOptions, Class<?> main, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(main.getName());
    command.addAll(args);
    return command;
  }

  /**
   * Runs {@code main} with {@code args} in a new JVM on {@code classPath} and returns its result
   * line without the prefix.
   *
   * @throws IllegalStateException if the child failed or printed no result, naming {@code what}
   */
  static String run(String classPath, Class<?> main, String what, List<String> args)
      throws Exception {
    return run(classPath, List.of(), main, what, args);
  }

  /** {@link #run(String, Class, String, List)} with {@code jvmOptions}. */
  static String run(
      String classPath, List<String> jvmOptions, Class<?> main, String what, List<String> args)
      throws Exception {
    Process p =
        new ProcessBuilder(command(classPath, jvmOptions, main, args))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String result = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith(RESULT)) {
          result = line.substring(RESULT.length());
        }
      }
    }
    if (p.waitFor() != 0 || result == null) {
      throw new IllegalStateException("the child JVM of " + what + " failed");
    }
    return result;
  }
}
