package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox status}: the backlog in five numbers, and the retry policies that the relay's
 * retry flags make; exit code 3 when dead letters exist.
 */
@Command(
    name = "status",
    modelTransformer = StatusCommand.DefinedFlags.class,
    mixinStandardHelpOptions = true,
    description = {
      "Shows pending events, those due now, dead letters, the age of the oldest pending event and"
          + " events processed in the last minute, and the retry policies in effect when given the"
          + " relay's retry flags (--max-attempts, the backoff, --max-age, --retry-config).",
      "Exit code 0, or 3 when dead letters exist, so it can serve as an alert probe."
    })
final class StatusCommand extends DatabaseCommand {

  @Option(names = "--json", description = "One JSON object on stdout.")
  boolean json;

  @Option(
      names = RetryFlags.PUBLISHER_CONFIG,
      paramLabel = "FILE",
      description =
          "The relay's publisher settings file, if it holds the retry policies' retry.* keys:"
              + " shows those policies (its other keys are not read).")
  @Nullable Path publisherConfig;

  StatusCommand(TxoutboxCommand root) {
    super(root);
  }

  /** Adds the relay's retry flags, whose policies it shows, to the command as picocli builds it. */
  static final class DefinedFlags implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec status) {
      RetryFlags.install(status, "%nRetry policies shown (give the relay's retry flags):%n", 1);
      return status;
    }
  }

  @Override
  public Integer call() {
    DatabaseTarget target = target();
    RelayConfig policies = policies();
    OutboxStatus status = admin(target).status();
    out()
        .println(
            json
                ? json(target.tables(), status, policies)
                : table(target.tables(), status, policies));
    return status.deadLetters() > 0 ? ExitCodes.DEAD_LETTERS : ExitCodes.OK;
  }

  /**
   * A relay configuration holding the retry policies of the retry flags, or null when none is
   * given: status cannot know a running relay's flags, so it shows no policy it was not told of.
   *
   * @throws picocli.CommandLine.ParameterException naming the flag or key (exit code 2)
   */
  private @Nullable RelayConfig policies() {
    RetryFlags retry = RetryFlags.of(spec.commandLine().getParseResult(), publisherConfig);
    RelayConfig.Builder b = RelayConfig.builder();
    try {
      if (!retry.given()) {
        return null;
      }
      retry.applyTo(b);
      return b.build();
    } catch (IllegalArgumentException e) {
      throw usageError(e.getMessage());
    }
  }

  /**
   * The status as one JSON object; {@code table_prefix} only when the outbox has one; {@code
   * retry_policies} those of {@code policies}, when given.
   */
  static String json(OutboxTables tables, OutboxStatus status, @Nullable RelayConfig policies) {
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
    if (policies != null) {
      RetryPolicyText.json(o, policies);
    }
    return Json.write(o);
  }

  /** The status as rows; the retry policies of {@code policies} after them, when given. */
  static String table(OutboxTables tables, OutboxStatus status, @Nullable RelayConfig policies) {
    List<String> rows =
        new ArrayList<>(
            List.of(
                row("schema", tables.schema()),
                row("table prefix", tables.tablePrefix().isEmpty() ? "-" : tables.tablePrefix()),
                row("pending", Long.toString(status.pending())),
                row("due now", Long.toString(status.dueNow())),
                row("dead letters", Long.toString(status.deadLetters())),
                row(
                    "oldest pending age",
                    status.oldestPendingAge().map(Durations::format).orElse("-")),
                row("processed last minute", Long.toString(status.processedLastMinute()))));
    if (policies != null) {
      rows.addAll(RetryPolicyText.rows(policies, StatusCommand::row));
    }
    return String.join(System.lineSeparator(), rows);
  }

  private static String row(String name, String value) {
    return String.format("%-22s %s", name + ":", value);
  }
}
