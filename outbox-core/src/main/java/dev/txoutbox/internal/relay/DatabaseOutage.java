package dev.txoutbox.internal.relay;

import dev.txoutbox.Backoff;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database as a relay's loop sees it (the polling relay's cycles, the WAL relay's streams),
 * logged as {@link BrokerCircuit} logs a broker outage: one WARN when runs start failing on it (the
 * failure's text; its stack trace at DEBUG, as each repeat), a WARN summary at most every {@link
 * BrokerCircuit#SUMMARY_INTERVAL} while they keep failing, and one INFO with the outage's length
 * when a run next succeeds. A failover, a restart or an exhausted pool thus reads as one outage,
 * however many workers and runs fail in it. Thread-safe: the workers share one instance.
 */
final class DatabaseOutage {

  private final Logger log;
  private final String relay;
  private final String runs;
  private final Backoff backoff;
  private final LongSupplier nanoTime;

  /** Read without the lock by {@link #succeeded()}, which every cycle calls. */
  private volatile boolean down;

  private long startedAt;
  private long nextSummaryAt;
  private int failedRuns;

  /** The polling relay's: its cycles, retried after {@link DefaultOutboxRelay#ERROR_BACKOFF}. */
  DatabaseOutage(String relay, LongSupplier nanoTime) {
    this(
        LoggerFactory.getLogger("dev.txoutbox.relay"),
        relay,
        "cycles",
        DefaultOutboxRelay.ERROR_BACKOFF,
        nanoTime);
  }

  /**
   * @param runs what the relay's loop runs and retries, in the plural: {@code cycles}, {@code
   *     streams}
   * @param backoff the waits between two runs while they fail
   */
  DatabaseOutage(Logger log, String relay, String runs, Backoff backoff, LongSupplier nanoTime) {
    this.log = log;
    this.relay = relay;
    this.runs = runs;
    this.backoff = backoff;
    this.nanoTime = nanoTime;
  }

  /** Reports a run that failed on the database; the loop retries after its backoff. */
  void failed(Throwable failure) {
    String text = RelayCycle.safe(FailureSource.describe(failure));
    synchronized (this) {
      long now = nanoTime.getAsLong();
      failedRuns++;
      if (!down) {
        down = true;
        startedAt = now;
        failedRuns = 1;
        nextSummaryAt = now + BrokerCircuit.SUMMARY_INTERVAL.toNanos();
        log.warn(
            "relay {}: database unavailable, retrying {} with backoff {} to {} (summary every"
                + " {}): {}",
            relay,
            runs,
            DurationText.of(backoff.initialDelay()),
            DurationText.of(backoff.maxDelay()),
            DurationText.of(BrokerCircuit.SUMMARY_INTERVAL),
            text);
      } else if (now - nextSummaryAt >= 0) {
        nextSummaryAt = now + BrokerCircuit.SUMMARY_INTERVAL.toNanos();
        log.warn(
            "relay {}: database still unavailable after {} ({} failed {}): {}",
            relay,
            DurationText.of(Duration.ofNanos(now - startedAt)),
            failedRuns,
            runs,
            text);
      }
    }
    log.debug("relay {}: one of the {} failed on the database", relay, runs, failure);
  }

  /** Reports a run that worked: an outage, if there was one, is over. */
  void succeeded() {
    if (!down) {
      return;
    }
    synchronized (this) {
      if (!down) {
        return;
      }
      down = false;
      log.info(
          "relay {}: database available again after {} ({} failed {})",
          relay,
          DurationText.of(Duration.ofNanos(nanoTime.getAsLong() - startedAt)),
          failedRuns,
          runs);
    }
  }
}
