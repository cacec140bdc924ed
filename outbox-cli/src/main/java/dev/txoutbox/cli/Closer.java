package dev.txoutbox.cli;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Closes what was registered, the last first, every one even when some fail; the first failure is
 * rethrown with the later ones suppressed. Not thread-safe.
 */
final class Closer implements AutoCloseable {

  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  /** Registers {@code resource}, to be closed before everything registered earlier. */
  <T extends AutoCloseable> T add(T resource) {
    resources.push(resource);
    return resource;
  }

  @Override
  public void close() {
    RuntimeException first = null;
    boolean interrupted = false;
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (Exception e) {
        if (first == null) {
          first = e instanceof RuntimeException r ? r : new IllegalStateException(e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (first != null) {
      throw first;
    }
  }
}
