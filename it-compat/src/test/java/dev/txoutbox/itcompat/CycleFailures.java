package dev.txoutbox.itcompat;

import dev.txoutbox.RelayListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A relay listener that keeps the error of every failed cycle or stream, oldest first. Thread-safe.
 */
final class CycleFailures implements RelayListener {

  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  @Override
  public void cycleFailed(Throwable error) {
    failures.add(error);
  }

  /** The errors so far, a live view. */
  List<Throwable> all() {
    return failures;
  }
}
