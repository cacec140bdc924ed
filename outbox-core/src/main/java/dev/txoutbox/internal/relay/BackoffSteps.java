package dev.txoutbox.internal.relay;

import dev.txoutbox.Backoff;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * The waits of one loop that backs off: after each consecutive failure (or idle cycle) the next
 * delay of a {@link Backoff}, until a success resets it. Every loop that waits longer and longer
 * goes through here rather than doubling a duration itself. Not thread-safe: one per loop, made on
 * the loop's thread.
 */
final class BackoffSteps {

  /** Steps counted at most; the delay reached its cap long before. */
  static final int MAX_STEPS = 1_000;

  private final Backoff backoff;
  private final RandomGenerator random;
  private int steps;

  BackoffSteps(Backoff backoff, RandomGenerator random) {
    this.backoff = backoff;
    this.random = random;
  }

  /** Counts one more step and returns the wait after it: the first is the initial delay. */
  Duration next() {
    steps = Math.min(steps + 1, MAX_STEPS);
    return backoff.delayAfter(steps, random);
  }

  /** Starts again from the initial delay. */
  void reset() {
    steps = 0;
  }

  /** Steps since the last reset. */
  int steps() {
    return steps;
  }
}
