package dev.txoutbox.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.Objects;

/**
 * What the commands take from their surroundings, passed in so that tests run the CLI in-process:
 * the environment, where results and diagnostics go, and the signal that stops a relay. Immutable.
 *
 * @param env environment variables ({@code OUTBOX_JDBC_URL}, {@code OUTBOX_DB_USER}, {@code
 *     OUTBOX_DB_PASSWORD})
 * @param out results: tables, JSON, counts
 * @param err diagnostics: errors, progress
 * @param shutdown blocks a long-running command until the process is asked to stop
 */
record CliContext(
    Map<String, String> env, PrintStream out, PrintStream err, ShutdownSignal shutdown) {

  CliContext {
    env = Map.copyOf(Objects.requireNonNull(env, "env"));
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
    Objects.requireNonNull(shutdown, "shutdown");
  }
}
