package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.schema.OutboxTables;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code txoutbox status}: the backlog in five numbers; exit code 3 when dead letters exist. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Shows pending events, those due now, dead letters, the age of the oldest pending event and"
          + " events processed in the last minute.",
      "Exit code 0, or 3 when dead letters exist, so it can serve as an alert probe."
    })
final class StatusCommand extends DatabaseCommand {

  @Option(names = "--json", description = "One JSON object on stdout.")
  boolean json;

  StatusCommand(TxoutboxCommand root) {
    super(root);
  }

  @Override
  public Integer call() {
    DatabaseTarget target = target();
    OutboxStatus status = admin(target).status();
    out().println(json ? json(target.tables(), status) : table(target.tables(), status));
    return status.deadLetters() > 0 ? ExitCodes.DEAD_LETTERS : ExitCodes.OK;
  }

  /** The status as one JSON object; {@code table_prefix} only when the outbox has one. */
  static String json(OutboxTables tables, OutboxStatus status) {
    ObjectNode o =
        Json.object()
            .put("schema", tables.schema())
            .put("pending", status.pending())
            .put("due_now", status.dueNow())
            .put("dead_letters", status.deadLetters());
    status
        .oldestPendingAge()
        .ifPresentOrElse(
            age -> o.put("oldest_pending_age_seconds", age.toMillis() / 1000.0),
            () -> o.putNull("oldest_pending_age_seconds"));
    o.put("processed_last_minute", status.processedLastMinute());
    if (!tables.tablePrefix().isEmpty()) {
      o.put("table_prefix", tables.tablePrefix());
    }
    return Json.write(o);
  }

  static String table(OutboxTables tables, OutboxStatus status) {
    return String.join(
        System.lineSeparator(),
        row("schema", tables.schema()),
        row("table prefix", tables.tablePrefix().isEmpty() ? "-" : tables.tablePrefix()),
        row("pending", Long.toString(status.pending())),
        row("due now", Long.toString(status.dueNow())),
        row("dead letters", Long.toString(status.deadLetters())),
        row("oldest pending age", status.oldestPendingAge().map(Durations::format).orElse("-")),
        row("processed last minute", Long.toString(status.processedLastMinute())));
  }

  private static String row(String name, String value) {
    return String.format("%-22s %s", name + ":", value);
  }
}
