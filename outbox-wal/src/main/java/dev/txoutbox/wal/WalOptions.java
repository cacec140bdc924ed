package dev.txoutbox.wal;

import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The WAL relay's own options, each defined once ({@link RelayOption}), beside the options every
 * relay shares ({@link RelayOptions}, set through {@link WalRelayBuilder#config}). {@link
 * WalRelayBuilder} checks its values with these definitions; the command line's WAL flags ({@code
 * txoutbox relay --source wal}), their {@code --help} and the option table of {@code
 * outbox-wal/README.md} are made from them. Thread-safe: constants only.
 */
public final class WalOptions {

  private WalOptions() {}

  /** A slot or publication name that needs no quoting anywhere. */
  public static final Pattern NAME = Pattern.compile("[a-z0-9_]{1,63}");

  /** {@link #NAME} in words, for errors and help. */
  public static final String NAME_RULE = "1 to 63 characters of a-z, 0-9 and _";

  /** What the slot and the publication are named unless set: {@link WalSlot#defaultName}. */
  private static final String DEFAULT_NAME = "txoutbox_<table prefix><schema>";

  /** {@link WalRelayBuilder#slotName}. */
  public static final RelayOption<String> SLOT_NAME =
      RelayOption.text(
              "slotName",
              "slot",
              "NAME",
              null,
              NAME,
              NAME_RULE,
              "the logical replication slot the relay reads; slot names are shared by every"
                  + " database of the server")
          .withDefaultText(DEFAULT_NAME);

  /** {@link WalRelayBuilder#publicationName}. */
  public static final RelayOption<String> PUBLICATION_NAME =
      RelayOption.text(
              "publicationName",
              "publication",
              "NAME",
              null,
              NAME,
              NAME_RULE,
              "the publication of the outbox table's inserts that the relay subscribes to")
          .withDefaultText(DEFAULT_NAME);

  /** {@link WalRelayBuilder#createIfMissing}. */
  public static final RelayOption<Boolean> CREATE_IF_MISSING =
      RelayOption.onOff(
          "createIfMissing",
          "createIfMissing",
          "create-slot",
          true,
          "the start creates a missing publication and slot, and the relay a slot that"
              + " disappeared; off, a missing one fails the start with the SQL that creates it");

  /** {@link WalRelayBuilder#replicationUrl}. */
  public static final RelayOption<String> REPLICATION_URL =
      RelayOption.text(
              "replicationUrl",
              "replication-url",
              "URL",
              null,
              Pattern.compile("jdbc:postgresql:.*", Pattern.DOTALL),
              "a JDBC URL starting with jdbc:postgresql:",
              "the JDBC URL of the replication connection to the outbox's database, straight to"
                  + " the server (a pooler such as PgBouncer does not carry replication"
                  + " connections)")
          .withDefaultText("required");

  /** {@link WalRelayBuilder#concurrentBatches}. */
  public static final RelayOption<Integer> CONCURRENT_BATCHES =
      RelayOption.integer(
          "concurrentBatches",
          "concurrent-batches",
          1,
          1,
          WalRelay.MAX_CONCURRENT_BATCHES,
          "batches claimed, published and recorded at a time, each in its own transaction; more"
              + " than 1, only with ordering none, drains a backlog faster where the database has"
              + " cores to spare, but a later batch may then be published before an earlier one"
              + " (positions are still confirmed in commit order)");

  /** {@link WalRelayBuilder#minBatchInterval}. */
  public static final RelayOption<Duration> MIN_BATCH_INTERVAL =
      RelayOption.of(
          "minBatchInterval",
          "minBatchInterval",
          "min-batch-interval",
          RelayOption.Type.DURATION,
          "DURATION",
          WalRelay.DEFAULT_MIN_BATCH_INTERVAL,
          null,
          new RelayOption.Rule<>() {
            @Override
            public @Nullable String violation(
                Duration v, @Nullable Duration other, RelayOption.Spelling s) {
              if (v.isNegative()) {
                return "must not be negative";
              }
              return v.compareTo(WalRelay.MAX_MIN_BATCH_INTERVAL) > 0
                  ? "must be at most " + DurationText.of(WalRelay.MAX_MIN_BATCH_INTERVAL)
                  : null;
            }

            @Override
            public String describe(RelayOption.Spelling s) {
              return "0 to " + DurationText.of(WalRelay.MAX_MIN_BATCH_INTERVAL);
            }
          },
          "the shortest time from one batch's publish to the next unless the next is full:"
              + " fewer, larger batches while events come fast, each event waiting up to that"
              + " much; 0 publishes a batch as soon as the stream has nothing more");

  /** {@link WalRelayBuilder#reconnectDelay}. */
  public static final RelayOption<Duration> RECONNECT_DELAY =
      RelayOption.positiveDuration(
          "reconnectDelay",
          "reconnectDelay",
          null,
          WalRelay.DEFAULT_RECONNECT_DELAY,
          null,
          "the wait before reopening a failed stream, doubled for each failure in a row up to"
              + " 30s (or this delay, if longer)");

  /** {@link WalRelayBuilder#sweeper}. */
  public static final RelayOption<Boolean> SWEEPER =
      RelayOption.onOff(
          "sweeper",
          "sweeper",
          null,
          true,
          "the relay builds, starts, closes and exposes the polling relay that retries,"
              + " dead-letters and sweeps behind it; off only to run that relay yourself");

  /** {@link WalRelayBuilder#sweepInterval}. */
  public static final RelayOption<Duration> SWEEP_INTERVAL =
      RelayOption.positiveDuration(
          "sweepInterval",
          "sweepInterval",
          "sweep-interval",
          WalRelay.DEFAULT_SWEEP_INTERVAL,
          null,
          "how often the sweeper polls, and how long after the stream opened it starts");

  /** {@link WalRelayBuilder#statusInterval}, set by tests only. */
  static final RelayOption<Duration> STATUS_INTERVAL =
      RelayOption.positiveDuration(
          "statusInterval",
          "statusInterval",
          null,
          WalRelay.DEFAULT_STATUS_INTERVAL,
          null,
          "how often the relay tells the server its position, and that it is alive while it"
              + " holds the slot during a broker outage");

  /** {@link WalRelayBuilder#visibilityWait}, set by tests only. */
  static final RelayOption<Duration> VISIBILITY_WAIT =
      RelayOption.positiveDuration(
          "visibilityWait",
          "visibilityWait",
          null,
          WalRelay.DEFAULT_VISIBILITY_WAIT,
          null,
          "how long the relay looks again for the rows of a commit the stream delivered but"
              + " that are not visible yet, before it leaves them to the polling relay");

  private static final List<RelayOption<?>> ALL =
      List.of(
          SLOT_NAME,
          PUBLICATION_NAME,
          CREATE_IF_MISSING,
          REPLICATION_URL,
          CONCURRENT_BATCHES,
          MIN_BATCH_INTERVAL,
          RECONNECT_DELAY,
          SWEEPER,
          SWEEP_INTERVAL);

  /** Every public option of {@link WalRelayBuilder}, in the order the documentation lists them. */
  public static List<RelayOption<?>> all() {
    return ALL;
  }
}
