package dev.txoutbox.cli;

import dev.txoutbox.OutboxAdmin;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** A subcommand that works on the outbox tables: resolves the database and reports back. */
abstract class DatabaseCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  final TxoutboxCommand root;

  DatabaseCommand(TxoutboxCommand root) {
    this.root = root;
  }

  /**
   * Where the database is, from the options and the environment; checked, not yet connected.
   *
   * @throws ParameterException if the options are missing or invalid (exit code 2)
   */
  final DatabaseTarget target() {
    try {
      return DatabaseTarget.resolve(root, root.context().env());
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }

  /**
   * A connected data source for a one-shot command.
   *
   * @throws DatabaseUnavailableException if the database cannot be reached (exit code 1)
   */
  final DataSource connect(DatabaseTarget target) {
    return target.connect();
  }

  /** The admin API on the outbox, connected. */
  final OutboxAdmin admin(DatabaseTarget target) {
    return OutboxAdmin.builder().dataSource(target.connect()).tables(target.tables()).build();
  }

  final ParameterException usageError(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  final PrintStream out() {
    return root.context().out();
  }

  final PrintStream err() {
    return root.context().err();
  }
}
