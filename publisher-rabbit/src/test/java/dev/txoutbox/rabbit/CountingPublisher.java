package dev.txoutbox.rabbit;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.Publisher;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Delegates to a real publisher and counts what the relay asks of it: {@code publish} calls and the
 * outcomes they returned. It can also run an action just before a given call, to break the broker
 * in the middle of a drain. Thread-safe.
 */
final class CountingPublisher implements Publisher {

  private final Publisher delegate;
  private final AtomicInteger calls = new AtomicInteger();
  private final List<Integer> batchSizes = new CopyOnWriteArrayList<>();
  private final Map<Status, AtomicInteger> outcomes = new ConcurrentHashMap<>();
  private volatile IntConsumer beforeCall = call -> {};

  CountingPublisher(Publisher delegate) {
    this.delegate = delegate;
  }

  /** Runs {@code action} with the number of each call (from 1) before the call is delegated. */
  CountingPublisher beforeCall(IntConsumer action) {
    this.beforeCall = action;
    return this;
  }

  /** How many times {@code publish} was called so far. */
  int calls() {
    return calls.get();
  }

  /** The number of messages of each call so far: call n (from 1) at index n - 1. */
  List<Integer> batchSizes() {
    return List.copyOf(batchSizes);
  }

  /** How many messages got the outcome {@code status} so far. */
  int outcomes(Status status) {
    AtomicInteger count = outcomes.get(status);
    return count == null ? 0 : count.get();
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
    int call;
    synchronized (batchSizes) { // so that call n's size is batchSizes().get(n - 1)
      call = calls.incrementAndGet();
      batchSizes.add(messages.size());
    }
    beforeCall.accept(call);
    List<PublishResult> results = delegate.publish(messages);
    for (PublishResult result : results) {
      outcomes.computeIfAbsent(result.status(), s -> new AtomicInteger()).incrementAndGet();
    }
    return results;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public String describe() {
    return delegate.describe();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
