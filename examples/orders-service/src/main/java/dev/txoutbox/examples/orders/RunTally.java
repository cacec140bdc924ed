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
 * the relay published, events the consumer received for the first time, and the events it dropped
 * as already processed, in two kinds: <b>re-reads</b> (a record it had read before, read again from
 * the same offset, as after the consumer group re-joins with uncommitted offsets) and <b>broker
 * duplicates</b> (another record in the topic carrying an event already processed, as when the
 * relay sent an event again because an acknowledgement was lost). Orders are tracked by id, so
 * "lost" is exact: orders written whose event never arrived.
 *
 * <p>This class is thread-safe.
 */
final class RunTally implements RelayListener {

  private final Set<String> written = ConcurrentHashMap.newKeySet();
  private final Set<String> received = ConcurrentHashMap.newKeySet();
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final Set<String> readPositions = ConcurrentHashMap.newKeySet();
  private final AtomicLong reReads = new AtomicLong();
  private final AtomicLong brokerDuplicates = new AtomicLong();
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

  /**
   * The consumer committed its handling of the record at {@code position} ({@code
   * topic-partition@offset}); {@code alreadyProcessed} when the record's event had been processed
   * before, so it was dropped.
   */
  void consumed(String position, boolean alreadyProcessed) {
    boolean firstRead = readPositions.add(position);
    if (alreadyProcessed) {
      (firstRead ? brokerDuplicates : reReads).incrementAndGet();
    }
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

  /** Records read again from an offset already read, dropped. */
  long reReads() {
    return reReads.get();
  }

  /** Records read for the first time whose event was processed from another record, dropped. */
  long brokerDuplicates() {
    return brokerDuplicates.get();
  }

  long skipped() {
    return skipped.get();
  }

  /** Orders written in this run whose event has not been received (yet). */
  long missing() {
    return written.stream().filter(id -> !received.contains(id)).count();
  }
}
