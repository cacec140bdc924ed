package dev.txoutbox;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;

/**
 * Hears what a relay does, for metrics and tracing. Every method has a no-op default. Calls come
 * from the relay's worker threads after the batch's transaction committed, so they describe durable
 * outcomes; implementations must be thread-safe and fast. An exception thrown here is logged and
 * never breaks the relay.
 */
public interface RelayListener {

  /** The broker acknowledged {@code message} and the event was completed. */
  default void published(OutboxMessage message) {}

  /** Publishing failed and the event will be retried after {@code delay}. */
  default void willRetry(OutboxMessage message, PublishResult failure, Duration delay) {}

  /** The event became a dead letter: a permanent failure, or its last allowed attempt failed. */
  default void deadLettered(OutboxMessage message, PublishResult failure) {}

  /**
   * A batch was committed.
   *
   * @param claimed events claimed
   * @param published events published and completed
   * @param failed events that failed (retried or dead-lettered)
   * @param duration from claim to commit
   */
  default void batchCompleted(int claimed, int published, int failed, Duration duration) {}

  /** A relay cycle failed (database unreachable, for instance); it will be tried again. */
  default void cycleFailed(Throwable error) {}

  /**
   * The broker became unavailable: the relay stopped claiming and probes it with small batches.
   * Called once per outage, when it starts.
   *
   * @param reason the publisher's reason, for operators
   */
  default void brokerUnavailable(String reason) {}

  /**
   * A probe batch reached the broker again and the relay resumed claiming.
   *
   * @param outage how long the broker was unavailable
   */
  default void brokerAvailable(Duration outage) {}

  /** A listener that does nothing. */
  static RelayListener none() {
    return new RelayListener() {};
  }
}
