package dev.txoutbox.cli;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.wal.WalOptions;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalRelayBuilder;
import dev.txoutbox.wal.WalSettingsException;
import dev.txoutbox.wal.WalSlot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code txoutbox relay}'s flags for where events come from ({@code --source}) and the WAL relay's
 * options, one flag per {@link WalOptions} option it sets, made from the option's definition
 * ({@link OptionFlags}); and what they make: the WAL relay's builder, the refusal of flags the
 * chosen source does not read, and the start line's words for the WAL relay. Reads them from a
 * parse result; immutable.
 */
final class WalFlags {

  /** Where the relay learns of new events. */
  enum Source {
    /** Polling the table: {@code OutboxRelay}. */
    POLL,
    /** A logical replication slot: {@code WalRelay}, with {@code OutboxRelay} as its sweeper. */
    WAL
  }

  /** The flag of the source, the command line's own. */
  static final String SOURCE_FLAG = "--source";

  /** How {@code --source} reads and writes a {@link Source}. */
  static final EnumFlag<Source> SOURCE = EnumFlag.of(SOURCE_FLAG, Source.class);

  /**
   * {@link WalOptions#REPLICATION_URL}, which the command line defaults to the database's own URL.
   */
  static final RelayOption<String> REPLICATION_URL =
      WalOptions.REPLICATION_URL.withDefaultText("--jdbc-url");

  /** The options of the {@code Source:} section, in the order {@code --help} lists them. */
  static final List<RelayOption<?>> OPTIONS =
      List.of(
          WalOptions.SLOT_NAME,
          WalOptions.PUBLICATION_NAME,
          WalOptions.CREATE_IF_MISSING,
          REPLICATION_URL,
          WalOptions.SWEEP_INTERVAL,
          WalOptions.MIN_BATCH_INTERVAL,
          WalOptions.CONCURRENT_BATCHES);

  private final ParseResult parsed;

  private WalFlags(ParseResult parsed) {
    this.parsed = parsed;
  }

  /** The flags given in {@code parsed}. */
  static WalFlags of(ParseResult parsed) {
    return new WalFlags(parsed);
  }

  /** Adds the {@code Source:} section's flags to {@code spec}: {@code --source}, then the WAL's. */
  static void install(CommandSpec spec) {
    List<OptionSpec> options = new ArrayList<>();
    options.add(
        OptionSpec.builder(SOURCE_FLAG)
            .paramLabel("SOURCE")
            .type(String.class)
            .description(
                "poll: poll the table; wal: read inserts from a logical replication slot"
                    + " (PostgreSQL 13+, wal_level=logical), with a polling sweeper beside it for"
                    + " retries, delayed events and anything the slot missed. The flags below"
                    + " apply to --source wal only. Default: poll.")
            .build());
    for (RelayOption<?> option : OPTIONS) {
      options.add(OptionFlags.option(option, note(option)));
    }
    OptionFlags.addGroup(spec, "%nSource:%n", 3, options);
  }

  /** What {@code --help} says of {@code option} beyond its definition, or null. */
  private static @Nullable String note(RelayOption<?> option) {
    if (option == REPLICATION_URL) {
      return "The same user and password as --jdbc-url.";
    }
    return null;
  }

  /**
   * The source of {@code --source}.
   *
   * @throws IllegalArgumentException listing the sources if it names none
   */
  Source source() {
    String source = parsed.matchedOptionValue(SOURCE_FLAG, null);
    return source == null ? Source.POLL : SOURCE.parse(source);
  }

  /**
   * Refuses the flags {@code source} does not read: the WAL flags with {@code --source poll}, and
   * with {@code --source wal} the polling relay's flags that the WAL relay cannot honour; then
   * checks each WAL flag's value with its option's rule in the words of the flags.
   *
   * @throws IllegalArgumentException naming the first such flag, or the flag and its bounds
   */
  void check(Source source, RelayFlags relay) {
    switch (source) {
      case POLL -> {
        for (RelayOption<?> option : OPTIONS) {
          if (parsed.hasMatchedOption(OptionFlags.flag(option))) {
            throw new IllegalArgumentException(
                OptionFlags.flag(option) + " applies to --source wal only but --source is poll");
          }
        }
      }
      case WAL -> {
        if (relay.given(RelayOptions.WORKERS)) {
          throw notForWal(RelayOptions.WORKERS, "it reads the slot on one thread, in commit order");
        }
        if (relay.given(RelayOptions.MIN_POLL_INTERVAL)
            || relay.given(RelayOptions.MAX_POLL_INTERVAL)) {
          throw notForWal(
              relay.given(RelayOptions.MIN_POLL_INTERVAL)
                  ? RelayOptions.MIN_POLL_INTERVAL
                  : RelayOptions.MAX_POLL_INTERVAL,
              "it does not poll; its sweeper polls every "
                  + OptionFlags.flag(WalOptions.SWEEP_INTERVAL));
        }
        if (relay.listen()) {
          throw notForWal(RelayOptions.LISTEN, "it reads each insert as it commits");
        }
        for (RelayOption<?> option : OPTIONS) {
          OptionFlags.check(parsed, option, OptionFlags.FLAGS);
        }
      }
    }
  }

  private static IllegalArgumentException notForWal(RelayOption<?> option, String why) {
    return new IllegalArgumentException(
        OptionFlags.flag(option) + " does not apply to --source wal: " + why);
  }

  /** {@code option}'s flag's value, or the option's default. */
  private <T> T value(RelayOption<T> option) {
    T value = OptionFlags.valueOrDefault(parsed, option);
    if (value == null) {
      throw new IllegalStateException("option " + option.name() + " has no default");
    }
    return value;
  }

  /** How often the sweeper polls: {@code --sweep-interval}, or its default. */
  Duration sweepInterval() {
    return value(WalOptions.SWEEP_INTERVAL);
  }

  /** The WAL relay's batches at a time: {@code --concurrent-batches}, or its default. */
  int concurrentBatches() {
    return value(WalOptions.CONCURRENT_BATCHES);
  }

  /** {@code --replication-url}, or the database's own URL. */
  String replicationUrl(DatabaseTarget target) {
    String given = OptionFlags.given(parsed, REPLICATION_URL);
    return given != null ? given : target.jdbcUrl();
  }

  /** {@code --slot}, or the relay's default name for {@code target}. */
  private String slot(DatabaseTarget target) {
    String given = OptionFlags.given(parsed, WalOptions.SLOT_NAME);
    return given != null ? given : WalSlot.defaultName(target.tables());
  }

  /** {@code --publication}, or the relay's default name for {@code target}. */
  private String publication(DatabaseTarget target) {
    String given = OptionFlags.given(parsed, WalOptions.PUBLICATION_NAME);
    return given != null ? given : WalSlot.defaultName(target.tables());
  }

  /**
   * The WAL relay's builder with the options of the flags, each checked by {@link #check} (a {@code
   * --replication-url} of the flags too); not yet connected.
   *
   * @throws IllegalArgumentException if the database's own URL is not a PostgreSQL JDBC URL
   */
  WalRelayBuilder walRelay(DatabaseTarget target) {
    String given = OptionFlags.given(parsed, REPLICATION_URL);
    if (given != null) {
      OutputMasking.hide(SecretMasking.secretsIn(given));
    }
    String replicationUrl = replicationUrl(target);
    REPLICATION_URL.check(replicationUrl, null, OptionFlags.FLAGS);
    return WalRelay.builder()
        .tables(target.tables())
        .replicationUrl(replicationUrl, target.replicationProperties(replicationUrl))
        .slotName(slot(target))
        .publicationName(publication(target))
        .createIfMissing(value(WalOptions.CREATE_IF_MISSING))
        .minBatchInterval(value(WalOptions.MIN_BATCH_INTERVAL))
        .concurrentBatches(concurrentBatches());
  }

  /**
   * Starts the WAL relay: a missing or unusable slot is one line, with the SQL or the flag to fix
   * it.
   */
  static void start(WalRelay reader) {
    try {
      reader.start();
    } catch (WalSettingsException e) {
      throw new CliException("the WAL relay cannot start: " + e.message(OptionFlags.FLAGS), e);
    } catch (IllegalStateException e) {
      throw new CliException("the WAL relay cannot start: " + e.getMessage(), e);
    }
  }

  /** The WAL relay's and its sweeper's configuration in the words and units of their flags. */
  String describe(RelayConfig c, DatabaseTarget target) {
    return "source wal: slot "
        + slot(target)
        + ", publication "
        + publication(target)
        + ", "
        + (value(WalOptions.CREATE_IF_MISSING) ? "creating them if missing" : "never creating them")
        + ", replication url "
        + SecretMasking.maskUri(replicationUrl(target))
        + ", url defaults "
        + ConnectionDefaults.describe(
            ConnectionDefaults.missingFrom(replicationUrl(target), ConnectionDefaults.Use.RELAY))
        + ", batch size "
        + c.batchSize()
        + ", min batch interval "
        + Durations.format(value(WalOptions.MIN_BATCH_INTERVAL))
        + ", concurrent batches "
        + concurrentBatches()
        + RelayStartLine.attemptsAndOrder(c)
        + RelayStartLine.backoffAndShutdown(c)
        + RetryPolicyText.perType(c)
        + "; sweeper '"
        + c.name()
        + "-sweeper' every "
        + Durations.format(sweepInterval());
  }
}
