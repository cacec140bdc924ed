package dev.txoutbox.cli;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalRelayBuilder;
import dev.txoutbox.wal.WalSlot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code txoutbox relay}'s flags for where events come from ({@code --source}) and the WAL relay's
 * slot, and what they make: the WAL relay's builder, the refusal of flags the chosen source does
 * not read, and the start line's words for the WAL relay. Not thread-safe: picocli fills it, then
 * the relay reads it once.
 */
final class WalFlags {

  /** Where the relay learns of new events. */
  enum Source {
    /** Polling the table: {@code OutboxRelay}. */
    POLL,
    /** A logical replication slot: {@code WalRelay}, with {@code OutboxRelay} as its sweeper. */
    WAL
  }

  /** How {@code --source} reads and writes a {@link Source}. */
  static final EnumFlag<Source> SOURCE = EnumFlag.of("--source", Source.class);

  /** How often the sweeper beside the WAL relay polls unless {@code --sweep-interval} says. */
  static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(30);

  /**
   * The flag that sets each option of {@link WalRelayBuilder}. Until outbox-wal defines its options
   * as {@code RelayOption}s, as core does for the shared ones, its builder's messages are put in
   * the words of these flags by {@link FlagNames}.
   */
  private static final Map<String, String> WAL_FLAGS =
      Map.of(
          "slotName", "--slot",
          "publicationName", "--publication",
          "replicationUrl", "--replication-url",
          "minBatchInterval", "--min-batch-interval",
          "concurrentBatches", "--concurrent-batches");

  @Option(
      names = "--source",
      paramLabel = "SOURCE",
      description =
          "poll: poll the table; wal: read inserts from a logical replication slot (PostgreSQL"
              + " 13+, wal_level=logical), with a polling sweeper beside it for retries, delayed"
              + " events and anything the slot missed. Default: poll.")
  String source;

  @Option(
      names = "--slot",
      paramLabel = "NAME",
      description =
          "The replication slot (wal), 1 to 63 of a-z, 0-9 and _."
              + " Default: txoutbox_<table prefix><schema>.")
  String slot;

  @Option(
      names = "--publication",
      paramLabel = "NAME",
      description = "The publication (wal), same rule. Default: the slot's default name.")
  String publication;

  @Option(
      names = "--no-create-slot",
      description =
          "Fail (wal) if the slot or publication is missing, printing the SQL to create it,"
              + " instead of creating it. Default: create.")
  boolean noCreateSlot;

  @Option(
      names = "--replication-url",
      paramLabel = "URL",
      description =
          "The JDBC URL of the replication connection (wal), straight to the server, not"
              + " through a pooler; same user and password. Default: --jdbc-url.")
  String replicationUrl;

  @Option(
      names = "--sweep-interval",
      paramLabel = "DURATION",
      converter = Durations.class,
      description = "How often the sweeper polls (wal). Default: 30s.")
  Duration sweepInterval;

  @Option(
      names = "--min-batch-interval",
      paramLabel = "DURATION",
      converter = Durations.class,
      description =
          "The shortest time between two batches that are not full (wal): fewer, larger"
              + " batches while events come fast, each waiting up to that much; 0ms publishes as"
              + " soon as the stream has nothing more; at most 1s. Default: 1ms.")
  Duration minBatchInterval;

  @Option(
      names = "--concurrent-batches",
      paramLabel = "N",
      description =
          "Batches claimed and published at a time (wal), 1 to 8, with --ordering none only:"
              + " more drains a backlog faster where the database has cores to spare, but a"
              + " later batch may be published before an earlier one; positions are still"
              + " confirmed in commit order. Default: 1.")
  Integer concurrentBatches;

  /**
   * The source of {@code --source}.
   *
   * @throws IllegalArgumentException listing the sources if it names none
   */
  Source source() {
    return source == null ? Source.POLL : SOURCE.parse(source);
  }

  /**
   * Refuses the flags {@code source} does not read: the WAL flags with {@code --source poll}, and
   * with {@code --source wal} the polling relay's flags that the WAL relay cannot honour.
   *
   * @throws IllegalArgumentException naming the first such flag
   */
  void check(Source source, RelayFlags relay) {
    switch (source) {
      case POLL -> {
        List<String> given = new ArrayList<>();
        addIf(given, slot != null, "--slot");
        addIf(given, publication != null, "--publication");
        addIf(given, noCreateSlot, "--no-create-slot");
        addIf(given, replicationUrl != null, "--replication-url");
        addIf(given, sweepInterval != null, "--sweep-interval");
        addIf(given, minBatchInterval != null, "--min-batch-interval");
        addIf(given, concurrentBatches != null, "--concurrent-batches");
        if (!given.isEmpty()) {
          throw new IllegalArgumentException(
              given.get(0) + " applies to --source wal only but --source is poll");
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
              "it does not poll; its sweeper polls every --sweep-interval");
        }
        if (relay.listen()) {
          throw notForWal(RelayOptions.LISTEN, "it reads each insert as it commits");
        }
        if (sweepInterval != null && sweepInterval.isZero()) {
          throw new IllegalArgumentException("--sweep-interval must be positive but was 0ms");
        }
      }
    }
  }

  private static void addIf(List<String> given, boolean present, String flag) {
    if (present) {
      given.add(flag);
    }
  }

  private static IllegalArgumentException notForWal(RelayOption<?> option, String why) {
    return new IllegalArgumentException(
        OptionFlags.flag(option) + " does not apply to --source wal: " + why);
  }

  /** How often the sweeper polls: {@code --sweep-interval}, or its default. */
  Duration sweepInterval() {
    return sweepInterval != null ? sweepInterval : DEFAULT_SWEEP_INTERVAL;
  }

  /** The WAL relay's batches at a time: {@code --concurrent-batches}, or 1. */
  int concurrentBatches() {
    return concurrentBatches != null ? concurrentBatches : 1;
  }

  /** {@code --replication-url}, or the database's own URL. */
  String replicationUrl(DatabaseTarget target) {
    return replicationUrl != null ? replicationUrl : target.jdbcUrl();
  }

  /**
   * The WAL relay's builder with the slot, publication and replication connection of the flags;
   * checked, not yet connected.
   *
   * @throws IllegalArgumentException naming the flag at fault
   */
  WalRelayBuilder walRelay(DatabaseTarget target) {
    if (replicationUrl != null) {
      OutputMasking.hide(SecretMasking.secretsIn(replicationUrl));
    }
    try {
      WalRelayBuilder b =
          WalRelay.builder()
              .tables(target.tables())
              .replicationUrl(
                  replicationUrl(target), target.replicationProperties(replicationUrl(target)))
              .createIfMissing(!noCreateSlot);
      if (slot != null) {
        b.slotName(slot);
      }
      if (publication != null) {
        b.publicationName(publication);
      }
      if (minBatchInterval != null) {
        b.minBatchInterval(minBatchInterval);
      }
      if (concurrentBatches != null) {
        b.concurrentBatches(concurrentBatches);
      }
      return b;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(FlagNames.of(e.getMessage(), WAL_FLAGS), e);
    }
  }

  /**
   * Starts the WAL relay: a missing or unusable slot is one line, with the SQL or the flag to fix
   * it.
   */
  static void start(WalRelay reader) {
    try {
      reader.start();
    } catch (IllegalStateException e) {
      throw new CliException(
          "the WAL relay cannot start: " + FlagNames.of(e.getMessage(), WAL_FLAGS), e);
    }
  }

  /** The WAL relay's and its sweeper's configuration in the words and units of their flags. */
  String describe(RelayConfig c, DatabaseTarget target) {
    return "source wal: slot "
        + (slot != null ? slot : WalSlot.defaultName(target.tables()))
        + ", publication "
        + (publication != null ? publication : WalSlot.defaultName(target.tables()))
        + ", "
        + (noCreateSlot ? "never creating them" : "creating them if missing")
        + ", replication url "
        + SecretMasking.maskUri(replicationUrl(target))
        + ", url defaults "
        + ConnectionDefaults.describe(
            ConnectionDefaults.missingFrom(replicationUrl(target), ConnectionDefaults.Use.RELAY))
        + ", batch size "
        + c.batchSize()
        + ", min batch interval "
        + Durations.format(
            minBatchInterval != null ? minBatchInterval : WalRelay.DEFAULT_MIN_BATCH_INTERVAL)
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
