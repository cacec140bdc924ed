package dev.txoutbox.examples.orders;

import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one run of the example counted: orders written (after their transaction committed), events
 * the relay published, events the consumer received for the first time and duplicates it dropped.
 * Orders are tracked by id, so "lost" is exact: orders written whose event never arrived.
 *
 * <p>This class is thread-safe.
 */
final class RunTally implements RelayListener {

  private final Set<String> written = ConcurrentHashMap.newKeySet();
  private final Set<String> received = ConcurrentHashMap.newKeySet();
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong skipped = new AtomicLong();

  /** An order's transaction committed. */
  void written(UUID orderId) {
    written.add(orderId.toString());
  }

  /**
   * The consumer processed an event for the first time.
   *
   * @param orderId the record's key: the order id for order events
   */
  void received(String orderId) {
    received.add(orderId);
  }

  /** The consumer dropped {@code count} redelivered events. */
  void addDuplicates(int count) {
    duplicates.addAndGet(count);
  }

  /** The consumer skipped {@code count} records that are not outbox events. */
  void addSkipped(int count) {
    skipped.addAndGet(count);
  }

  @Override
  public void published(OutboxMessage message) {
    published.incrementAndGet();
  }

  @Override
  public void willRetry(OutboxMessage message, PublishResult failure, Duration delay) {
    retried.incrementAndGet();
  }

  long written() {
    return written.size();
  }

  /** Events received for the first time, including any written before this run. */
  long received() {
    return received.size();
  }

  long published() {
    return published.get();
  }

  long retried() {
    return retried.get();
  }

  long duplicates() {
    return duplicates.get();
  }

  long skipped() {
    return skipped.get();
  }

  /** Orders written in this run whose event has not been received (yet). */
  long missing() {
    return written.stream().filter(id -> !received.contains(id)).count();
  }
}
