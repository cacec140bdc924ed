package dev.txoutbox.cli;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIGTERM and SIGINT as a {@link ShutdownSignal}, with the command's own exit code.
 *
 * <p>On a signal the JVM runs its shutdown hooks and would then exit with 143. Once {@link #arm()}
 * has installed the hook, the hook instead tells the waiting command to stop, waits until {@link
 * #finished(int)} reports that the command has closed everything, and ends the process with the
 * command's exit code (0 after a graceful stop). Closing is bounded by the command's own timeouts;
 * SIGKILL remains the way to stop a process that does not close.
 *
 * <p>This type is thread-safe.
 */
final class JvmShutdown implements ShutdownSignal {

  private final CountDownLatch requested = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private final AtomicBoolean armed = new AtomicBoolean();
  private volatile int exitCode = ExitCodes.FAILURE;

  @Override
  public void arm() {
    if (armed.compareAndSet(false, true)) {
      Runtime.getRuntime().addShutdownHook(new Thread(this::onSignal, "txoutbox-shutdown"));
    }
  }

  @Override
  public void await() throws InterruptedException {
    arm();
    requested.await();
  }

  @Override
  public boolean await(Duration timeout) throws InterruptedException {
    arm();
    return requested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The command returned {@code code} and has released everything it held. */
  void finished(int code) {
    exitCode = code;
    finished.countDown();
  }

  private void onSignal() {
    requested.countDown();
    try {
      finished.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.out.flush();
    System.err.flush();
    // Skip the JVM's own exit status (143 after SIGTERM): the command stopped as asked.
    Runtime.getRuntime().halt(exitCode);
  }
}
