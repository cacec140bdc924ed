package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.TableUpkeep;
import dev.txoutbox.schema.OutboxTables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
          + " events processed in the last minute; the events table's size, dead tuples, last"
          + " vacuum and whether autovacuum visits it; and the retry policies in effect when given"
          + " the relay's retry flags (--max-attempts, the backoff, --max-age, --retry-config).",
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

  private final Clock clock = Clock.systemUTC();

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
    OutboxAdmin admin = admin(target);
    OutboxStatus status = admin.status();
    TableUpkeep upkeep = admin.tableUpkeep();
    out()
        .println(
            json
                ? json(target.tables(), status, upkeep, policies)
                : table(target.tables(), status, upkeep, policies, clock));
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
   * events_table} the table's upkeep ({@code last_vacuum} an instant or null); {@code
   * retry_policies} those of {@code policies}, when given.
   */
  static String json(
      OutboxTables tables,
      OutboxStatus status,
      TableUpkeep upkeep,
      @Nullable RelayConfig policies) {
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
    ObjectNode table =
        o.putObject("events_table")
            .put("size_bytes", upkeep.sizeBytes())
            .put("live_tuples", upkeep.liveTuples())
            .put("dead_tuples", upkeep.deadTuples());
    upkeep
        .lastVacuum()
        .ifPresentOrElse(
            at -> table.put("last_vacuum", at.toString()), () -> table.putNull("last_vacuum"));
    table.put("autovacuum", upkeep.autovacuum());
    if (policies != null) {
      RetryPolicyText.json(o, policies);
    }
    return Json.write(o);
  }

  /**
   * The status as rows, the last vacuum's age by {@code clock}; the retry policies of {@code
   * policies} after them, when given.
   */
  static String table(
      OutboxTables tables,
      OutboxStatus status,
      TableUpkeep upkeep,
      @Nullable RelayConfig policies,
      Clock clock) {
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
                row("processed last minute", Long.toString(status.processedLastMinute())),
                row(
                    "events table",
                    String.format(
                        Locale.ROOT,
                        "%.1f MB, %d dead tuples, %d live",
                        upkeep.sizeBytes() / 1024.0 / 1024.0,
                        upkeep.deadTuples(),
                        upkeep.liveTuples())),
                row(
                    "last vacuum",
                    upkeep
                        .lastVacuum()
                        .map(
                            at ->
                                Durations.format(
                                        Duration.between(at, clock.instant()).abs().withNanos(0))
                                    + " ago")
                        .orElse("none recorded")),
                row(
                    "autovacuum",
                    upkeep.autovacuum()
                        ? "on"
                        : "OFF for this table: its dead tuples grow until something vacuums it"
                            + " (run the relay with --vacuum-interval, or turn autovacuum on)")));
    if (policies != null) {
      rows.addAll(RetryPolicyText.rows(policies, StatusCommand::row));
    }
    return String.join(System.lineSeparator(), rows);
  }

  private static String row(String name, String value) {
    return String.format("%-22s %s", name + ":", value);
  }
}
