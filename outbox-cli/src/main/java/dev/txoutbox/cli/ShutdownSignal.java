package dev.txoutbox.cli;

import java.time.Duration;

/**
 * Tells a long-running command (the relay) when to stop. The process's implementation is {@link
 * JvmShutdown}: SIGTERM or SIGINT.
 */
@FunctionalInterface
interface ShutdownSignal {

  /**
   * Starts listening for the signal. A command calls this before it starts work that must be
   * stopped gracefully, so that a signal arriving during start-up is not lost. Defaults to nothing.
   */
  default void arm() {}

  /**
   * Blocks until the command is asked to stop; returns at once if it already was.
   *
   * @throws InterruptedException if the waiting thread is interrupted, which also means stop
   */
  default void await() throws InterruptedException {
    while (!await(Duration.ofDays(1))) {
      // keep waiting
    }
  }

  /**
   * Blocks until the command is asked to stop or {@code timeout} has passed.
   *
   * @return true if the command was asked to stop, false if {@code timeout} passed first
   * @throws InterruptedException if the waiting thread is interrupted, which also means stop
   */
  boolean await(Duration timeout) throws InterruptedException;
}
