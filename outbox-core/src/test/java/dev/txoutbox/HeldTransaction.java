package dev.txoutbox;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jooq.DSLContext;

/**
 * A transaction on a thread of its own that does its work, then stays open, holding its row locks,
 * until the test commits it: the way to make another statement wait on those rows at a known point,
 * without sleeping.
 */
final class HeldTransaction<T> {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Threads of their own: a held transaction must never wait for a pool thread. */
  static final ExecutorService THREADS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "held-transaction");
            t.setDaemon(true);
            return t;
          });

  private final CountDownLatch workDone = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private final CompletableFuture<T> result;
  private volatile T value;

  private HeldTransaction(DSLContext dsl, Function<DSLContext, T> work) {
    this.result =
        CompletableFuture.supplyAsync(
            () -> {
              dsl.transaction(
                  tx -> {
                    value = work.apply(tx.dsl());
                    workDone.countDown();
                    if (!release.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                      throw new IllegalStateException("the test never released the transaction");
                    }
                  });
              return value;
            },
            THREADS);
  }

  /** Starts {@code work} in a new transaction and returns once the work is done, still open. */
  static <T> HeldTransaction<T> open(DSLContext dsl, Function<DSLContext, T> work)
      throws Exception {
    HeldTransaction<T> held = new HeldTransaction<>(dsl, work);
    while (!held.workDone.await(100, TimeUnit.MILLISECONDS)) {
      if (held.result.isDone()) {
        held.result.get(); // the work failed: rethrow
      }
    }
    return held;
  }

  /** What the work returned, before the commit. */
  T value() {
    return value;
  }

  /** Commits and waits for the commit. */
  T commit() throws Exception {
    release.countDown();
    return result.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }
}
