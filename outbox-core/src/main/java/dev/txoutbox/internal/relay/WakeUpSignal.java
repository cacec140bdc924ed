package dev.txoutbox.internal.relay;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Lets waiting workers sleep until a timeout or a wake-up, whichever comes first. A wake-up reaches
 * every worker, including one that is busy when it arrives: it returns at once from its next wait.
 */
final class WakeUpSignal {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private long generation;

  /** The current generation; pass it to {@link #await} to see wake-ups that come after. */
  long generation() {
    lock.lock();
    try {
      return generation;
    } finally {
      lock.unlock();
    }
  }

  /** Wakes every waiting worker. */
  void signal() {
    lock.lock();
    try {
      generation++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until {@code timeout} passes or a wake-up newer than {@code seen} arrives.
   *
   * @return the generation now
   */
  long await(Duration timeout, long seen) throws InterruptedException {
    long nanos = timeout.toNanos();
    lock.lock();
    try {
      while (generation == seen && nanos > 0) {
        nanos = changed.awaitNanos(nanos);
      }
      return generation;
    } finally {
      lock.unlock();
    }
  }
}
