package dev.txoutbox.sqs;

import dev.txoutbox.spi.BatchResults;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The state of one {@code publish} call: one result slot per message, the deadline, and the SQS
 * requests in flight. Each slot is set once; whatever has no result when the deadline passes is
 * reported as the broker being unavailable, and a result that arrives later is ignored.
 * Thread-safe.
 */
final class PublishRun {

  private final AtomicReferenceArray<PublishResult> results;
  private final Duration timeout;
  private final long deadline;
  private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
  private volatile boolean over;

  PublishRun(int size, Duration timeout) {
    this.results = new AtomicReferenceArray<>(size);
    this.timeout = timeout;
    this.deadline = System.nanoTime() + timeout.toNanos();
  }

  /** Records the outcome of message {@code index} unless it already has one. */
  void complete(int index, PublishResult result) {
    results.compareAndSet(index, null, result);
  }

  /** Whether the call has ended (deadline or interruption): start no further request. */
  boolean isOver() {
    return over;
  }

  /** The time left until the deadline, at least one millisecond. */
  Duration remaining() {
    return Duration.ofNanos(
        Math.max(TimeUnit.MILLISECONDS.toNanos(1), deadline - System.nanoTime()));
  }

  /** Remembers {@code request} until it completes, so that the deadline can cancel it. */
  <T> CompletableFuture<T> track(CompletableFuture<T> request) {
    inFlight.add(request);
    request.whenComplete((value, error) -> inFlight.remove(request));
    return request;
  }

  /**
   * Waits for {@code lanes} until the deadline and returns one result per message.
   *
   * @throws InterruptedException if the calling thread is interrupted; requests in flight are
   *     cancelled
   */
  List<PublishResult> await(List<CompletableFuture<Void>> lanes) throws InterruptedException {
    // SQS answered nothing for these within the deadline: that says nothing about the messages.
    PublishResult unfinished =
        PublishResult.brokerUnavailable(
            "no acknowledgement from SQS within the send timeout of " + DurationText.of(timeout));
    try {
      CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new))
          .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      // what has no result yet is reported as unfinished below
    } catch (InterruptedException e) {
      over = true;
      cancelInFlight();
      throw e;
    } catch (ExecutionException e) {
      unfinished =
          PublishResult.retryable("publishing to SQS failed: " + e.getCause(), e.getCause());
    }
    over = true;
    PublishResult[] sealed = new PublishResult[results.length()];
    for (int i = 0; i < sealed.length; i++) {
      sealed[i] = results.get(i); // what arrives after this is ignored
    }
    cancelInFlight(); // after sealing, so a cancelled request cannot change the answer
    return BatchResults.fillUnset(sealed, unfinished);
  }

  private void cancelInFlight() {
    inFlight.forEach(request -> request.cancel(true));
  }
}
