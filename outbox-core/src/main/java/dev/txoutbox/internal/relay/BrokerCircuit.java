package dev.txoutbox.internal.relay;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the relay may claim: closed while the broker answers, open while it is unavailable. While
 * open, one worker at a time publishes a small probe batch after a backoff; the first probe the
 * broker answers (with any outcome but "unavailable") closes the circuit again. Logs one line per
 * state change and a summary at most every {@link #SUMMARY_INTERVAL}, in the kernel's words ({@link
 * PublishStep}). The one tracker of a broker outage for both relays: the WAL relay, which holds its
 * slot instead of pausing claims, reports each publish of a held batch as a probe ({@link #wal}).
 * News older than the last change is ignored: a cycle that began before the broker was seen back
 * and then found it unavailable does not open the circuit again. Thread-safe.
 */
public final class BrokerCircuit {

  /** Events in a probe batch. */
  static final int PROBE_BATCH_SIZE = 10;

  /** The longest time between two WARN lines while the broker stays unavailable. */
  static final Duration SUMMARY_INTERVAL = Duration.ofSeconds(30);

  /** What a worker may do now. */
  sealed interface Permit {}

  /** Claim as usual. */
  record Claim() implements Permit {}

  /** Publish one probe batch of at most {@link #PROBE_BATCH_SIZE}, then report it. */
  record Probe() implements Permit {}

  /** Do not claim; ask again after {@code duration}. */
  record Wait(Duration duration) implements Permit {}

  private static final Claim CLAIM = new Claim();
  private static final Probe PROBE = new Probe();

  private final Logger log;
  private final String relay;
  private final Backoff backoff;
  private final RelayListener listener;
  private final LongSupplier nanoTime;

  /** What the relay does while the broker is unavailable, for the WARN that opens the circuit. */
  private final String policy;

  /** What a probe is, plural, for the lines that count them. */
  private final String probesWord;

  /** What the relay does once the broker is back, for the INFO that closes the circuit. */
  private final String resuming;

  private boolean open;
  private long closedAt;
  private boolean probing;
  private long openedAt;
  private long nextProbeAt;
  private long nextSummaryAt;
  private int probes;
  private int unavailableReports;

  /** The polling relay's circuit, logging to {@code dev.txoutbox.relay}. */
  BrokerCircuit(String relay, Backoff backoff, RelayListener listener, LongSupplier nanoTime) {
    this(
        LoggerFactory.getLogger("dev.txoutbox.relay"),
        relay,
        backoff,
        listener,
        nanoTime,
        "pausing claims and probing with up to "
            + PROBE_BATCH_SIZE
            + " events (backoff "
            + DurationText.of(backoff.initialDelay())
            + " to "
            + DurationText.of(backoff.maxDelay())
            + ")",
        "probes",
        "resuming claims");
  }

  private BrokerCircuit(
      Logger log,
      String relay,
      Backoff backoff,
      RelayListener listener,
      LongSupplier nanoTime,
      String policy,
      String probesWord,
      String resuming) {
    this.log = log;
    this.relay = relay;
    this.backoff = backoff;
    this.listener = listener;
    this.nanoTime = nanoTime;
    this.policy = policy;
    this.probesWord = probesWord;
    this.resuming = resuming;
    this.closedAt = nanoTime.getAsLong();
  }

  /**
   * The WAL relay's circuit, logging to {@code logger}: a batch the broker is unavailable to holds
   * the slot and is published whole again after each of {@code backoff}'s delays; each of those
   * publishes is a probe ({@link #report}, then {@link #probed}). The WAL relay never asks for a
   * {@link #permit()}.
   *
   * @param listener the relay's listener wrapper ({@link PublishStep#listener()})
   */
  public static BrokerCircuit wal(
      String logger, String relay, Backoff backoff, RelayListener listener) {
    return new BrokerCircuit(
        LoggerFactory.getLogger(logger),
        relay,
        backoff,
        listener,
        System::nanoTime,
        "holding the slot and publishing the whole batch again after backoff "
            + DurationText.of(backoff.initialDelay())
            + " to "
            + DurationText.of(backoff.maxDelay()),
        "publish attempts",
        "resuming");
  }

  /** Now on the circuit's clock, for {@link #report}'s {@code cycleStarted}. */
  public long now() {
    return nanoTime.getAsLong();
  }

  /** Whether workers may claim full batches. */
  synchronized boolean isClosed() {
    return !open;
  }

  /** Claim, probe or wait. A {@link Probe} must be followed by {@link #probed}. */
  synchronized Permit permit() {
    if (!open) {
      return CLAIM;
    }
    long now = nanoTime.getAsLong();
    if (!probing && now - nextProbeAt >= 0) {
      probing = true;
      return PROBE;
    }
    long until = probing ? backoff.initialDelay().toNanos() : nextProbeAt - now;
    return new Wait(Duration.ofNanos(Math.max(until, 1_000_000)));
  }

  /**
   * Reports a cycle's view of the broker.
   *
   * @param unavailableReason why the broker was unavailable to the whole batch, or null if it
   *     answered (an empty batch also counts as no news and keeps the state)
   * @param answered whether the broker answered at least one message of the batch
   * @param cycleStarted when the reporting cycle began, on the circuit's clock: a batch that was in
   *     flight when another opened the circuit may have been partly confirmed before the broker
   *     went away, which is no news that it is back
   */
  public void report(@Nullable String unavailableReason, boolean answered, long cycleStarted) {
    Runnable event = null;
    synchronized (this) {
      long now = nanoTime.getAsLong();
      if (answered) {
        if (open && cycleStarted - openedAt >= 0) {
          Duration outage = Duration.ofNanos(now - openedAt);
          String count = probes + " " + probesWord;
          open = false;
          closedAt = now;
          event = () -> PublishStep.brokerAvailable(log, relay, listener, outage, count, resuming);
        }
      } else if (unavailableReason != null) {
        if (!open && cycleStarted - closedAt < 0) {
          return; // begun before the broker was seen back: older news than that
        }
        if (!open) {
          open = true;
          openedAt = now;
          probes = 0;
          unavailableReports = 0;
          nextSummaryAt = now + SUMMARY_INTERVAL.toNanos();
          String reason = unavailableReason;
          event = () -> PublishStep.brokerUnavailable(log, relay, listener, reason, policy);
        } else if (now - nextSummaryAt >= 0) {
          nextSummaryAt = now + SUMMARY_INTERVAL.toNanos();
          PublishStep.brokerStillUnavailable(
              log,
              relay,
              unavailableReason,
              Duration.ofNanos(now - openedAt),
              probes + " " + probesWord);
        }
        nextProbeAt = now + delay(++unavailableReports);
      }
    }
    if (event != null) {
      event.run();
    }
  }

  /** Ends a probe started by {@link #permit()}; call after {@link #report}, even on failure. */
  public synchronized void probed() {
    probing = false;
    probes++;
    long now = nanoTime.getAsLong();
    if (open && nextProbeAt - now < 0) {
      // The probe failed without news of the broker (the database, say): wait before the next.
      nextProbeAt = now + delay(Math.max(1, unavailableReports));
    }
  }

  private long delay(int failures) {
    return backoff.delayAfter(failures, ThreadLocalRandom.current()).toNanos();
  }
}
