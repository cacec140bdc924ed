package dev.txoutbox.internal.relay;

import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans out to the user's listeners; an exception from one is logged, never propagated. */
final class SafeListener implements RelayListener {

  private static final Logger log = LoggerFactory.getLogger(SafeListener.class);

  private final List<RelayListener> listeners;

  SafeListener(List<RelayListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  private void each(Consumer<RelayListener> call) {
    for (RelayListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        log.warn("relay listener {} failed; ignoring", l, e);
      }
    }
  }

  @Override
  public void published(OutboxMessage message) {
    each(l -> l.published(message));
  }

  @Override
  public void willRetry(OutboxMessage message, PublishResult failure, Duration delay) {
    each(l -> l.willRetry(message, failure, delay));
  }

  @Override
  public void deadLettered(OutboxMessage message, PublishResult failure) {
    each(l -> l.deadLettered(message, failure));
  }

  @Override
  public void batchCompleted(int claimed, int published, int failed, Duration duration) {
    each(l -> l.batchCompleted(claimed, published, failed, duration));
  }

  @Override
  public void cycleFailed(Throwable error) {
    each(l -> l.cycleFailed(error));
  }

  @Override
  public void brokerUnavailable(String reason) {
    each(l -> l.brokerUnavailable(reason));
  }

  @Override
  public void brokerAvailable(Duration outage) {
    each(l -> l.brokerAvailable(outage));
  }
}
