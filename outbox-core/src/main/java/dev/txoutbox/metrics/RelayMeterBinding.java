package dev.txoutbox.metrics;

import dev.txoutbox.RelayListener;

/**
 * The outbox meters of one relay, registered by {@link OutboxMetrics#bindRelay}: a {@link
 * RelayListener} to tell the relay's outcomes to, and {@link #close()} to remove every meter.
 * {@code OutboxRelay} registers its own; this is for relays built on other parts, such as
 * outbox-wal's {@code WalRelay}, so that their meters have the same names, tags and meaning.
 * Thread-safe.
 */
public interface RelayMeterBinding extends RelayListener, AutoCloseable {

  /**
   * Stops the backlog gauges' refresh thread and removes every meter of this relay from the
   * registry. Outcomes told afterwards are ignored. Idempotent.
   */
  @Override
  void close();
}
