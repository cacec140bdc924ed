package dev.txoutbox.cli;

import dev.txoutbox.schema.OutboxSchema;
import javax.sql.DataSource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code txoutbox migrate}: creates or upgrades the outbox tables. */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description = {
      "Creates or upgrades the outbox tables in the schema (creating the schema if needed),",
      "every name after --table-prefix if one is given.",
      "Safe to run again, and from several processes at once."
    })
final class MigrateCommand extends DatabaseCommand {

  @Option(
      names = "--with-notify-trigger",
      description =
          "Also installs the opt-in statement-level NOTIFY trigger, for relays that LISTEN.")
  boolean withNotifyTrigger;

  @Option(
      names = "--with-ordering-index",
      description = "Also installs the opt-in index that 'relay --ordering per-aggregate' needs.")
  boolean withOrderingIndex;

  MigrateCommand(TxoutboxCommand root) {
    super(root);
  }

  @Override
  public Integer call() {
    DatabaseTarget target = target();
    DataSource ds = connect(target);
    int applied = OutboxSchema.migrate(ds, target.tables());
    out()
        .println(
            target.describeOutbox()
                + ": "
                + applied
                + " migration"
                + (applied == 1 ? "" : "s")
                + " applied");
    if (withNotifyTrigger) {
      int trigger = OutboxSchema.migrateNotifyTrigger(ds, target.tables());
      out()
          .println(
              target.describeOutbox()
                  + ": NOTIFY trigger "
                  + (trigger == 0 ? "already installed" : "installed")
                  + " (channel "
                  + target.tables().notifyChannel()
                  + ")");
    }
    if (withOrderingIndex) {
      int index = OutboxSchema.migrateOrderingIndex(ds, target.tables());
      out()
          .println(
              target.describeOutbox()
                  + ": ordering index "
                  + (index == 0 ? "already installed" : "installed"));
    }
    return ExitCodes.OK;
  }
}
