package dev.txoutbox.internal.relay;

import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database as the relay's workers see it, logged as {@link BrokerCircuit} logs a broker outage:
 * one WARN when cycles start failing on it (the failure's text; its stack trace at DEBUG), a WARN
 * summary at most every {@link BrokerCircuit#SUMMARY_INTERVAL} while they keep failing, and one
 * INFO with the outage's length when a cycle next succeeds. A failover, a restart or an exhausted
 * pool thus reads as one outage, however many workers and cycles fail in it. Thread-safe: the
 * workers share one instance.
 */
final class DatabaseOutage {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  private final String relay;
  private final LongSupplier nanoTime;

  /** Read without the lock by {@link #succeeded()}, which every cycle calls. */
  private volatile boolean down;

  private long startedAt;
  private long nextSummaryAt;
  private int failedCycles;

  DatabaseOutage(String relay, LongSupplier nanoTime) {
    this.relay = relay;
    this.nanoTime = nanoTime;
  }

  /** Reports a cycle that failed on the database; the failing worker retries after its backoff. */
  void failed(Throwable failure) {
    String text = RelayCycle.safe(FailureSource.describe(failure));
    synchronized (this) {
      long now = nanoTime.getAsLong();
      failedCycles++;
      if (!down) {
        down = true;
        startedAt = now;
        failedCycles = 1;
        nextSummaryAt = now + BrokerCircuit.SUMMARY_INTERVAL.toNanos();
        log.warn(
            "relay {}: database unavailable, retrying cycles with backoff {} to {} (summary every"
                + " {}): {}",
            relay,
            DurationText.of(DefaultOutboxRelay.ERROR_BACKOFF.initialDelay()),
            DurationText.of(DefaultOutboxRelay.ERROR_BACKOFF.maxDelay()),
            DurationText.of(BrokerCircuit.SUMMARY_INTERVAL),
            text);
      } else if (now - nextSummaryAt >= 0) {
        nextSummaryAt = now + BrokerCircuit.SUMMARY_INTERVAL.toNanos();
        log.warn(
            "relay {}: database still unavailable after {} ({} failed cycles): {}",
            relay,
            DurationText.of(Duration.ofNanos(now - startedAt)),
            failedCycles,
            text);
      }
    }
    log.debug("relay {}: cycle failed on the database", relay, failure);
  }

  /** Reports a cycle that ran to its end: an outage, if there was one, is over. */
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
          "relay {}: database available again after {} ({} failed cycles)",
          relay,
          DurationText.of(Duration.ofNanos(nanoTime.getAsLong() - startedAt)),
          failedCycles);
    }
  }
}
