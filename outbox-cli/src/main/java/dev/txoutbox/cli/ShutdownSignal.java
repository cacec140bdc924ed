package dev.txoutbox.cli;

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
  void await() throws InterruptedException;
}
