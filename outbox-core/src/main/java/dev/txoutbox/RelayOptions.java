package dev.txoutbox;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The options every relay shares, each defined once ({@link RelayOption}): {@link RelayConfig}'s
 * and {@link OutboxRelay.Builder}'s value options. {@link RelayConfig.Builder#build()}, {@link
 * Backoff} and {@link RetryPolicy} check their values with these definitions; the command line's
 * relay flags, their {@code --help} and the option table of {@code docs/configuration.md} are made
 * from them. Thread-safe: constants only.
 */
public final class RelayOptions {

  private RelayOptions() {}

  /** {@link RelayConfig.Builder#name}. */
  public static final RelayOption<String> NAME =
      RelayOption.text(
          "name",
          "relay-name",
          "NAME",
          RelayConfig.DEFAULT_NAME,
          Pattern.compile("[A-Za-z0-9_.-]{1,64}"),
          "1 to 64 characters of [A-Za-z0-9_.-]",
          "names the relay's threads, its log lines and the relay tag of its metrics");

  /** {@link RelayConfig.Builder#batchSize}. */
  public static final RelayOption<Integer> BATCH_SIZE =
      RelayOption.integer(
          "batchSize",
          "batch-size",
          RelayConfig.DEFAULT_BATCH_SIZE,
          1,
          RelayConfig.MAX_BATCH_SIZE,
          "events claimed and published per cycle");

  /** {@link RelayConfig.Builder#workers}. */
  public static final RelayOption<Integer> WORKERS =
      RelayOption.integer(
          "workers",
          "workers",
          RelayConfig.DEFAULT_WORKERS,
          1,
          RelayConfig.MAX_WORKERS,
          "concurrent claim-publish-complete loops of the polling relay");

  /** {@link RelayConfig.Builder#minPollInterval}. */
  public static final RelayOption<Duration> MIN_POLL_INTERVAL =
      RelayOption.positiveDuration(
          "minPollInterval",
          "minPollInterval",
          "min-poll-interval",
          Duration.ofMillis(25),
          null,
          "the polling relay's wait after a cycle that found some but not a full batch of events");

  /** {@link RelayConfig.Builder#maxPollInterval}. */
  public static final RelayOption<Duration> MAX_POLL_INTERVAL =
      RelayOption.positiveDuration(
          "maxPollInterval",
          "maxPollInterval",
          "max-poll-interval",
          Duration.ofSeconds(1),
          MIN_POLL_INTERVAL,
          "the polling relay's longest wait when idle: the wait doubles from the shortest up to"
              + " this while nothing is found");

  /** {@link RelayConfig.Builder#maxAttempts} and {@link RetryPolicy#maxAttempts()}. */
  public static final RelayOption<Integer> MAX_ATTEMPTS =
      RelayOption.integer(
          "maxAttempts",
          "max-attempts",
          RelayConfig.DEFAULT_MAX_ATTEMPTS,
          1,
          RetryPolicy.MAX_ATTEMPTS_LIMIT,
          "publish attempts before an event becomes a dead letter");

  /** {@link Backoff#initialDelay()} of {@link RelayConfig.Builder#backoff}. */
  public static final RelayOption<Duration> BACKOFF_INITIAL =
      RelayOption.positiveDuration(
          "initialDelay",
          "backoff",
          "backoff-initial",
          Backoff.DEFAULT_INITIAL_DELAY,
          null,
          "the retry delay after an event's first failure");

  /** {@link Backoff#maxDelay()} of {@link RelayConfig.Builder#backoff}. */
  public static final RelayOption<Duration> BACKOFF_MAX =
      RelayOption.positiveDuration(
          "maxDelay",
          "backoff",
          "backoff-max",
          Backoff.DEFAULT_MAX_DELAY,
          BACKOFF_INITIAL,
          "the longest retry delay");

  /** {@link Backoff#multiplier()} of {@link RelayConfig.Builder#backoff}. */
  public static final RelayOption<Double> BACKOFF_MULTIPLIER =
      RelayOption.number(
          "multiplier",
          "backoff",
          "backoff-multiplier",
          Backoff.DEFAULT_MULTIPLIER,
          1,
          Double.POSITIVE_INFINITY,
          "the growth of the retry delay per failure");

  /** {@link Backoff#jitter()} of {@link RelayConfig.Builder#backoff}. */
  public static final RelayOption<Double> BACKOFF_JITTER =
      RelayOption.number(
          "jitter",
          "backoff",
          "backoff-jitter",
          Backoff.DEFAULT_JITTER,
          0,
          1,
          "the random share of each retry delay (0.2: each delay is 80% to 100% of its nominal"
              + " value)");

  /** {@link RelayConfig.Builder#maxAge} and {@link RetryPolicy#withMaxAge}. */
  public static final RelayOption<Duration> MAX_AGE =
      RelayOption.positiveDuration(
          "maxAge",
          "maxAge",
          "max-age",
          null,
          null,
          "the default policy's age limit: an event still failing once this old (from its"
              + " creation) becomes a dead letter at that failure, whatever attempts it has left");

  /** {@link RelayConfig.Builder#completionMode}. */
  public static final RelayOption<CompletionMode> COMPLETION_MODE =
      RelayOption.choice(
          "completionMode",
          "completion",
          CompletionMode.class,
          CompletionMode.MARK_PROCESSED,
          mode ->
              switch (mode) {
                case MARK_PROCESSED -> "mark";
                case DELETE -> "delete";
              },
          "what becomes of a published event's row: mark sets processed_at (the retention"
              + " cleanup removes it later), delete deletes it");

  /** {@link RelayConfig.Builder#ordering}. */
  public static final RelayOption<Ordering> ORDERING =
      RelayOption.choice(
          "ordering",
          "ordering",
          Ordering.class,
          Ordering.NONE,
          o -> o.name().toLowerCase(Locale.ROOT).replace('_', '-'),
          "how each aggregate's events are kept in order: none, best-effort order;"
              + " per-aggregate: an aggregate's next event waits until the previous one is"
              + " acknowledged, a dead letter halts its aggregate;"
              + " per-aggregate-skip-dead-letters, the same, but dead letters are parked."
              + " The per-aggregate modes need the ordering indexes");

  /** {@link RelayConfig.Builder#vacuumInterval}. */
  public static final RelayOption<Duration> VACUUM_INTERVAL =
      RelayOption.positiveDuration(
          "vacuumInterval",
          "vacuumInterval",
          "vacuum-interval",
          null,
          null,
          "how often the relay runs a plain VACUUM of the events table, so that completed rows"
              + " leave few dead tuples (none: autovacuum alone, which leaves up to about its"
              + " naptime's worth, a minute by default); the relay's role must own the table");

  /** {@link RelayConfig.Builder#shutdownTimeout}. */
  public static final RelayOption<Duration> SHUTDOWN_TIMEOUT =
      RelayOption.duration(
          "shutdownTimeout",
          "shutdown-timeout",
          Duration.ofSeconds(30),
          "how long closing the relay lets the batch in flight finish before it is rolled back");

  /** {@link RelayConfig.Builder#brokerProbeBackoff}. */
  public static final RelayOption<Backoff> BROKER_PROBE_BACKOFF =
      RelayOption.backoff(
          "brokerProbeBackoff",
          Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30)),
          "while the publisher reports the broker unavailable: the wait between probe batches of"
              + " at most 10 events, which cost no attempt");

  /** {@link OutboxRelay.Builder#listenForNotifications(boolean)}. */
  public static final RelayOption<Boolean> LISTEN =
      RelayOption.onOff(
          "listenForNotifications",
          "listenForNotifications",
          "listen",
          "the polling relay also wakes up on NOTIFY from the opt-in trigger, holding one"
              + " connection; polling goes on");

  private static final List<RelayOption<?>> ALL =
      List.of(
          NAME,
          BATCH_SIZE,
          WORKERS,
          MIN_POLL_INTERVAL,
          MAX_POLL_INTERVAL,
          MAX_ATTEMPTS,
          BACKOFF_INITIAL,
          BACKOFF_MAX,
          BACKOFF_MULTIPLIER,
          BACKOFF_JITTER,
          MAX_AGE,
          COMPLETION_MODE,
          ORDERING,
          VACUUM_INTERVAL,
          SHUTDOWN_TIMEOUT,
          BROKER_PROBE_BACKOFF,
          LISTEN);

  /** Every option, in the order the documentation lists them. */
  public static List<RelayOption<?>> all() {
    return ALL;
  }
}
