package dev.txoutbox.cli;

import dev.txoutbox.fleet.FleetException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code txoutbox fleet remove NAME}: removes an entry and its lease; the node serving it stops its
 * relay at its next renewal. The outbox's own database is not touched.
 */
@Command(
    name = "remove",
    mixinStandardHelpOptions = true,
    description = {
      "Removes an outbox from the fleet's registry: the node serving it stops its relay at its next"
          + " renewal. The outbox's tables and events stay as they are.",
      "Exit code 1 if there is no such entry."
    })
final class FleetRemoveCommand extends FleetCommand.Control {

  @Parameters(index = "0", paramLabel = "NAME", description = "The entry's name.")
  String name;

  FleetRemoveCommand(TxoutboxCommand root) {
    super(root);
  }

  @Override
  public Integer call() {
    DatabaseTarget target = controlTarget();
    boolean removed;
    try {
      removed = registry(connect(target)).remove(name);
    } catch (FleetException e) {
      throw failure(e);
    }
    if (!removed) {
      throw new CliException(
          "outbox "
              + OutputMasking.line(name)
              + " is not in the fleet's registry: nothing removed");
    }
    out().println("removed outbox " + name + " from the fleet's registry");
    return ExitCodes.OK;
  }
}
