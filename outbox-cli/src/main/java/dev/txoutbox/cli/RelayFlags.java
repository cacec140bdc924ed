package dev.txoutbox.cli;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code txoutbox relay}'s flags for how the relay claims and publishes: one flag per {@link
 * RelayOptions} option it sets, made from the option's definition ({@link OptionFlags}), and the
 * pool size. Reads them from a parse result; immutable.
 */
final class RelayFlags {

  /** The options of the {@code Relay:} section, in the order {@code --help} lists them. */
  static final List<RelayOption<?>> OPTIONS =
      List.of(
          RelayOptions.NAME,
          RelayOptions.BATCH_SIZE,
          RelayOptions.WORKERS,
          RelayOptions.COMPLETION_MODE,
          RelayOptions.ORDERING,
          RelayOptions.MIN_POLL_INTERVAL,
          RelayOptions.MAX_POLL_INTERVAL,
          RelayOptions.VACUUM_INTERVAL,
          RelayOptions.SHUTDOWN_TIMEOUT);

  /** How {@code --ordering} reads and writes an {@link Ordering}. */
  static final EnumFlag<Ordering> ORDERING =
      OptionFlags.enumFlag(RelayOptions.ORDERING, Ordering.class);

  /** How {@code --completion} reads and writes a {@link CompletionMode}. */
  static final EnumFlag<CompletionMode> COMPLETION =
      OptionFlags.enumFlag(RelayOptions.COMPLETION_MODE, CompletionMode.class);

  /** The flag of the pool's size, the command line's own. */
  static final String POOL_SIZE = "--pool-size";

  private final ParseResult parsed;

  private RelayFlags(ParseResult parsed) {
    this.parsed = parsed;
  }

  /** The flags given in {@code parsed}. */
  static RelayFlags of(ParseResult parsed) {
    return new RelayFlags(parsed);
  }

  /** Adds the {@code Relay:} section's flags to {@code spec}. */
  static void install(CommandSpec spec) {
    OptionFlags.addGroup(
        spec,
        "%nRelay:%n",
        1,
        List.of(
            OptionFlags.option(RelayOptions.NAME, null),
            OptionFlags.option(RelayOptions.BATCH_SIZE, null),
            OptionFlags.option(RelayOptions.WORKERS, null),
            OptionFlags.option(
                RelayOptions.COMPLETION_MODE, "Clean marked rows up with 'txoutbox cleanup'."),
            OptionFlags.option(
                RelayOptions.ORDERING,
                "With --source wal, both the WAL relay and its sweeper. Install the index with"
                    + " 'migrate --with-ordering-index'."),
            OptionFlags.option(RelayOptions.MIN_POLL_INTERVAL, null),
            OptionFlags.option(RelayOptions.MAX_POLL_INTERVAL, null),
            OptionFlags.option(
                RelayOptions.VACUUM_INTERVAL,
                "With --source wal, its sweeper's. See docs/operations.md, table upkeep."),
            OptionFlags.option(RelayOptions.SHUTDOWN_TIMEOUT, null),
            OptionSpec.builder(POOL_SIZE)
                .paramLabel("N")
                .type(Integer.class)
                .description("Database connections, at least --workers. Default: workers + 2.")
                .build(),
            OptionFlags.option(
                RelayOptions.LISTEN,
                "The trigger is installed by 'migrate --with-notify-trigger'.")));
  }

  /** Whether the flag of {@code option} was given. */
  boolean given(RelayOption<?> option) {
    return parsed.hasMatchedOption(OptionFlags.flag(option));
  }

  /** {@code --pool-size}, or null. */
  @Nullable Integer poolSize() {
    return parsed.matchedOptionValue(POOL_SIZE, null);
  }

  /** {@code --listen}. */
  boolean listen() {
    return Boolean.TRUE.equals(OptionFlags.given(parsed, RelayOptions.LISTEN));
  }

  /**
   * Sets the flags given on {@code b}, each checked first with its option's rule in the words of
   * the flags.
   *
   * @throws IllegalArgumentException naming the flag and its bounds, or listing a choice's words
   */
  void applyTo(RelayConfig.Builder b) {
    for (RelayOption<?> option : OPTIONS) {
      OptionFlags.check(parsed, option, OptionFlags.FLAGS);
    }
    String name = OptionFlags.given(parsed, RelayOptions.NAME);
    if (name != null) {
      b.name(name);
    }
    Integer batchSize = OptionFlags.given(parsed, RelayOptions.BATCH_SIZE);
    if (batchSize != null) {
      b.batchSize(batchSize);
    }
    Integer workers = OptionFlags.given(parsed, RelayOptions.WORKERS);
    if (workers != null) {
      b.workers(workers);
    }
    String completion =
        parsed.matchedOptionValue(OptionFlags.flag(RelayOptions.COMPLETION_MODE), null);
    if (completion != null) {
      b.completionMode(COMPLETION.parse(completion));
    }
    String ordering = parsed.matchedOptionValue(OptionFlags.flag(RelayOptions.ORDERING), null);
    if (ordering != null) {
      b.ordering(ORDERING.parse(ordering));
    }
    Duration min = OptionFlags.given(parsed, RelayOptions.MIN_POLL_INTERVAL);
    if (min != null) {
      b.minPollInterval(min);
    }
    Duration max = OptionFlags.given(parsed, RelayOptions.MAX_POLL_INTERVAL);
    if (max != null) {
      b.maxPollInterval(max);
    }
    Duration vacuum = OptionFlags.given(parsed, RelayOptions.VACUUM_INTERVAL);
    if (vacuum != null) {
      b.vacuumInterval(vacuum);
    }
    Duration shutdown = OptionFlags.given(parsed, RelayOptions.SHUTDOWN_TIMEOUT);
    if (shutdown != null) {
      b.shutdownTimeout(shutdown);
    }
  }
}
