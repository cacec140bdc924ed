package dev.txoutbox.internal.metrics;

import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.TableUpkeep;
import dev.txoutbox.schema.OutboxTables;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * An admin that answers {@link #status()} from a supplier (a real admin's or a fixed one), counts
 * the calls, remembers the calling threads and fails on request. Every other method throws: the
 * metrics must only ever ask for the status.
 */
final class CountingAdmin implements OutboxAdmin {

  private final Supplier<OutboxStatus> status;
  final AtomicInteger statusCalls = new AtomicInteger();
  final AtomicInteger failedCalls = new AtomicInteger();
  final Set<String> callerThreads = ConcurrentHashMap.newKeySet();
  final Set<Boolean> callerDaemon = ConcurrentHashMap.newKeySet();
  private volatile RuntimeException failure;

  CountingAdmin(Supplier<OutboxStatus> status) {
    this.status = status;
  }

  @Override
  public OutboxTables tables() {
    throw unused();
  }

  @Override
  public TableUpkeep tableUpkeep() {
    throw unused();
  }

  static CountingAdmin fixed(OutboxStatus status) {
    return new CountingAdmin(() -> status);
  }

  /** Makes every following {@link #status()} throw {@code failure}, or succeed again if null. */
  void failWith(RuntimeException failure) {
    this.failure = failure;
  }

  @Override
  public OutboxStatus status() {
    statusCalls.incrementAndGet();
    callerThreads.add(Thread.currentThread().getName());
    callerDaemon.add(Thread.currentThread().isDaemon());
    RuntimeException f = failure;
    if (f != null) {
      failedCalls.incrementAndGet();
      throw f;
    }
    return status.get();
  }

  private static UnsupportedOperationException unused() {
    return new UnsupportedOperationException("the metrics must only call status()");
  }

  @Override
  public long pendingCount() {
    throw unused();
  }

  @Override
  public long deadLetterCount() {
    throw unused();
  }

  @Override
  public List<DeadLetter> deadLetters(String eventType, int limit) {
    throw unused();
  }

  @Override
  public List<DeadLetterGroup> deadLetterGroups() {
    throw unused();
  }

  @Override
  public long requeue(DeadLetterSelector selector) {
    throw unused();
  }

  @Override
  public long count(DeadLetterSelector selector) {
    throw unused();
  }

  @Override
  public long purge(DeadLetterSelector selector) {
    throw unused();
  }

  @Override
  public long cleanupProcessed(Duration olderThan, int chunkSize, LongConsumer progress) {
    throw unused();
  }
}
