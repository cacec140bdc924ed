package dev.txoutbox.cli;

import dev.txoutbox.OutboxAdmin;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code txoutbox cleanup}: the retention job for processed events. */
@Command(
    name = "cleanup",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes events processed longer ago than --older-than, in chunks each committed on its"
          + " own. Pending events and dead letters are never touched.",
      "Progress goes to stderr; the total to stdout."
    })
final class CleanupCommand extends DatabaseCommand {

  @Option(
      names = "--older-than",
      required = true,
      paramLabel = "AGE",
      converter = Durations.class,
      description = "Such as 30m, 12h, 7d, or ISO-8601 (P7D); at most 36500d.")
  Duration olderThan;

  @Option(
      names = "--chunk",
      paramLabel = "ROWS",
      defaultValue = "5000",
      description = "Rows deleted per statement, 1 to 100000. Default: ${DEFAULT-VALUE}.")
  int chunk;

  CleanupCommand(TxoutboxCommand root) {
    super(root);
  }

  @Override
  public Integer call() {
    if (chunk < 1 || chunk > OutboxAdmin.MAX_CHUNK_SIZE) {
      throw usageError(
          "--chunk must be between 1 and " + OutboxAdmin.MAX_CHUNK_SIZE + " but was " + chunk);
    }
    if (olderThan.compareTo(OutboxAdmin.MAX_CLEANUP_AGE) > 0) {
      throw usageError(
          "--older-than must be at most "
              + Durations.format(OutboxAdmin.MAX_CLEANUP_AGE)
              + " but was "
              + Durations.format(olderThan));
    }
    OutboxAdmin admin = admin(target());
    long deleted =
        admin.cleanupProcessed(
            olderThan, chunk, total -> err().println("cleanup: " + total + " deleted so far"));
    out()
        .println(
            "deleted "
                + deleted
                + " processed event"
                + (deleted == 1 ? "" : "s")
                + " older than "
                + Durations.format(olderThan));
    return ExitCodes.OK;
  }
}
