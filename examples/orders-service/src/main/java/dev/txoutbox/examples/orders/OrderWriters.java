package dev.txoutbox.examples.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Threads ({@code order-writer-<n>}) creating orders through {@link CreateOrder} until the wanted
 * number is written, each order for one of {@value #CUSTOMERS} customers of this run ({@code
 * <customerPrefix><n>}). The first failure stops them all. Thread-safe.
 */
final class OrderWriters {

  static final int CUSTOMERS = 100;

  private final CreateOrder createOrder;
  private final RunTally tally;
  private final int orders;
  private final String customerPrefix;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopped;

  OrderWriters(
      CreateOrder createOrder, RunTally tally, int orders, int writers, String customerPrefix) {
    this.createOrder = createOrder;
    this.tally = tally;
    this.orders = orders;
    this.customerPrefix = customerPrefix;
    for (int i = 1; i <= writers; i++) {
      threads.add(new Thread(this::write, "order-writer-" + i));
    }
  }

  void start() {
    threads.forEach(Thread::start);
  }

  /** Whether every writer has finished, by completing its share, failing or being stopped. */
  boolean isDone() {
    return threads.stream().noneMatch(Thread::isAlive);
  }

  /** The first failure, or null. */
  RuntimeException failure() {
    return failure.get();
  }

  /** Lets each writer finish its current order, then waits for them. */
  void stop() throws InterruptedException {
    stopped = true;
    for (Thread thread : threads) {
      thread.join();
    }
  }

  private void write() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      int n;
      while (!stopped && failure.get() == null && (n = next.getAndIncrement()) < orders) {
        String customer = customerPrefix + (n % CUSTOMERS);
        UUID orderId = createOrder.create(customer, 100 + random.nextInt(100_000));
        tally.written(orderId);
      }
    } catch (RuntimeException e) {
      failure.compareAndSet(null, e);
    }
  }
}
