package dev.txoutbox.cli;

import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.spi.Printable;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code txoutbox dead-letters}: list, group, requeue and purge events given up on. */
@Command(
    name = "dead-letters",
    mixinStandardHelpOptions = true,
    description = "Lists, groups, requeues and purges dead letters.")
final class DeadLettersCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(
        spec.commandLine(), "a command must be given (list, groups, requeue or purge) but was not");
  }

  /** Which dead letters a change applies to: exactly one of the three. */
  static final class Selection {
    @Option(
        names = "--id",
        paramLabel = "ID",
        arity = "1..*",
        split = ",",
        required = true,
        description = "These event ids (repeat, or separate with commas).")
    List<UUID> ids;

    @Option(
        names = "--event-type",
        paramLabel = "TYPE",
        required = true,
        description = "Every dead letter of this event type.")
    String eventType;

    @Option(names = "--all", required = true, description = "Every dead letter.")
    boolean all;

    DeadLetterSelector selector() {
      if (ids != null) {
        return DeadLetterSelector.ids(Set.copyOf(ids));
      }
      if (eventType != null) {
        return DeadLetterSelector.eventType(eventType);
      }
      return DeadLetterSelector.all();
    }
  }

  /** {@code dead-letters list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Lists dead letters, the most recent first.")
  static final class ListCommand extends DatabaseCommand {

    @Option(names = "--event-type", paramLabel = "TYPE", description = "Only this event type.")
    String eventType;

    @Option(
        names = "--limit",
        paramLabel = "N",
        defaultValue = "100",
        description = "At most N, from 1 to 10000. Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--json", description = "A JSON array on stdout, with payloads and headers.")
    boolean json;

    ListCommand(TxoutboxCommand root) {
      super(root);
    }

    @Override
    public Integer call() {
      if (limit < 1 || limit > 10_000) {
        throw usageError("--limit must be between 1 and 10000 but was " + limit);
      }
      if (eventType != null && eventType.isBlank()) {
        throw usageError(
            "--event-type must not be blank but was '" + Printable.of(eventType) + "'");
      }
      List<DeadLetter> letters = admin(target()).deadLetters(eventType, limit);
      out().println(json ? DeadLetterFormat.json(letters) : DeadLetterFormat.table(letters));
      return ExitCodes.OK;
    }
  }

  /** {@code dead-letters groups}. */
  @Command(
      name = "groups",
      mixinStandardHelpOptions = true,
      description =
          "Counts dead letters by event type and error fingerprint (the error with numbers, ids"
              + " and quoted values replaced by ?), the most recent group first.")
  static final class GroupsCommand extends DatabaseCommand {

    @Option(names = "--json", description = "A JSON array on stdout.")
    boolean json;

    GroupsCommand(TxoutboxCommand root) {
      super(root);
    }

    @Override
    public Integer call() {
      List<DeadLetterGroup> groups = admin(target()).deadLetterGroups();
      out().println(json ? DeadLetterFormat.groupsJson(groups) : DeadLetterFormat.groups(groups));
      return ExitCodes.OK;
    }
  }

  /** {@code dead-letters requeue}. */
  @Command(
      name = "requeue",
      mixinStandardHelpOptions = true,
      description = {
        "Makes dead letters pending again, attempts reset to 0, so relays publish them at once.",
        "Prints how many were requeued."
      })
  static final class RequeueCommand extends DatabaseCommand {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Selection selection;

    @Option(names = "--dry-run", description = "Only print how many would be requeued.")
    boolean dryRun;

    RequeueCommand(TxoutboxCommand root) {
      super(root);
    }

    @Override
    public Integer call() {
      DeadLetterSelector selector = validSelector(this, selection);
      OutboxAdmin admin = admin(target());
      if (dryRun) {
        out().println("would requeue " + admin.count(selector) + " (" + selector + "; dry run)");
      } else {
        out().println("requeued " + admin.requeue(selector) + " (" + selector + ")");
      }
      return ExitCodes.OK;
    }
  }

  /** {@code dead-letters purge}. */
  @Command(
      name = "purge",
      mixinStandardHelpOptions = true,
      description = {
        "Deletes dead letters for good. Refuses without --yes (exit code 2), printing how many"
            + " would be deleted.",
        "Prints how many were deleted."
      })
  static final class PurgeCommand extends DatabaseCommand {

    @ArgGroup(exclusive = true, multiplicity = "1")
    Selection selection;

    @Option(names = "--yes", description = "Really delete them.")
    boolean yes;

    @Option(names = "--dry-run", description = "Only print how many would be deleted.")
    boolean dryRun;

    PurgeCommand(TxoutboxCommand root) {
      super(root);
    }

    @Override
    public Integer call() {
      DeadLetterSelector selector = validSelector(this, selection);
      OutboxAdmin admin = admin(target());
      if (dryRun) {
        out().println("would purge " + admin.count(selector) + " (" + selector + "; dry run)");
        return ExitCodes.OK;
      }
      if (!yes) {
        err()
            .println(
                "txoutbox: refusing to purge "
                    + admin.count(selector)
                    + " ("
                    + selector
                    + ") without --yes; nothing deleted");
        return ExitCodes.USAGE;
      }
      out().println("purged " + admin.purge(selector) + " (" + selector + ")");
      return ExitCodes.OK;
    }
  }

  private static DeadLetterSelector validSelector(DatabaseCommand command, Selection selection) {
    try {
      return selection.selector();
    } catch (IllegalArgumentException e) {
      throw command.usageError(e.getMessage());
    }
  }
}
