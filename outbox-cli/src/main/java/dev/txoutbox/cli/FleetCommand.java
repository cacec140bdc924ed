package dev.txoutbox.cli;

import dev.txoutbox.fleet.FleetException;
import dev.txoutbox.fleet.FleetRegistry;
import dev.txoutbox.fleet.FleetSchema;
import dev.txoutbox.schema.OutboxSchema;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code txoutbox fleet}: a relay fleet node ({@code run}) and the registry of the outboxes it
 * serves ({@code list}, {@code add}, {@code remove}), in the control database that {@code
 * --jdbc-url}, {@code --user} and the password name (see outbox-fleet's README).
 */
@Command(
    name = "fleet",
    mixinStandardHelpOptions = true,
    description = {
      "Many outboxes served by several relay processes: a fleet node, and the registry of outboxes"
          + " in the control database (--jdbc-url, --user, OUTBOX_DB_PASSWORD or --password-file"
          + " name the control database, not an outbox)."
    })
final class FleetCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw TxoutboxCommand.commandMissing(spec);
  }

  /**
   * A {@code fleet} subcommand: its database is the control database, its schema {@code
   * --control-schema}; {@code --schema} and {@code --table-prefix}, which name an outbox's tables
   * for the other commands, are refused.
   */
  abstract static class Control extends DatabaseCommand {

    @Option(
        names = "--control-schema",
        paramLabel = "SCHEMA",
        description =
            "The schema of the fleet's tables (registry, nodes, leases) in the control database."
                + " Default: "
                + FleetSchema.DEFAULT_SCHEMA
                + ".")
    String controlSchema;

    Control(TxoutboxCommand root) {
      super(root);
    }

    /** The control database, checked, not connected; the fleet's flags checked first. */
    final DatabaseTarget controlTarget() {
      if (root.schema != null || root.tablePrefix != null) {
        throw usageError(
            (root.schema != null ? "--schema" : "--table-prefix")
                + " does not apply to fleet commands: the fleet's tables are in --control-schema,"
                + " an outbox's are given to 'fleet add' as --outbox-schema and"
                + " --outbox-table-prefix");
      }
      controlSchema();
      return target();
    }

    /** {@code --control-schema} or its default, checked. */
    final String controlSchema() {
      String schema = controlSchema == null ? FleetSchema.DEFAULT_SCHEMA : controlSchema;
      try {
        return OutboxSchema.requireSchemaName(schema);
      } catch (IllegalArgumentException e) {
        throw usageError("--control-schema: " + e.getMessage());
      }
    }

    /** The registry in the control schema of {@code db}. */
    final FleetRegistry registry(DataSource db) {
      return FleetRegistry.create(db, controlSchema());
    }

    /**
     * {@code e} in the user's words: a control schema without the fleet's tables is said as such,
     * anything else is left to the CLI's failure handler.
     */
    final RuntimeException failure(FleetException e) {
      for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
        if (t instanceof SQLException sql
            && ("42P01".equals(sql.getSQLState()) || "3F000".equals(sql.getSQLState()))) {
          return new CliException(
              "the control database has no fleet registry in schema "
                  + controlSchema()
                  + ": 'txoutbox fleet add' or 'txoutbox fleet run' creates it",
              e);
        }
      }
      return e;
    }
  }
}
