package dev.txoutbox;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential backoff with jitter, capped: the delay before attempt {@code n + 1} after {@code n}
 * failures is {@code min(maxDelay, initialDelay * multiplier^(n-1))}, less a random share of up to
 * {@code jitter} of it, so that events failing together do not retry together. Immutable and
 * thread-safe.
 *
 * @param initialDelay the delay after the first failure; positive
 * @param maxDelay the largest delay; at least {@code initialDelay}
 * @param multiplier the growth factor per failure; at least 1
 * @param jitter the share of each delay that is random, from 0 (none) to 1 (full jitter)
 */
public record Backoff(Duration initialDelay, Duration maxDelay, double multiplier, double jitter) {

  /** Default initial delay: 1 second. */
  public static final Duration DEFAULT_INITIAL_DELAY = Duration.ofSeconds(1);

  /** Default largest delay: 5 minutes. */
  public static final Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(5);

  /** Default multiplier: 2. */
  public static final double DEFAULT_MULTIPLIER = 2.0;

  /** Default jitter: 0.2 (each delay is 80% to 100% of its nominal value). */
  public static final double DEFAULT_JITTER = 0.2;

  /**
   * @throws NullPointerException if a duration is null
   * @throws IllegalArgumentException if a value is out of its range (the message names it)
   */
  public Backoff {
    // Each rule is its option's definition, which the command line checks its flags with too.
    RelayOptions.BACKOFF_INITIAL.check(initialDelay);
    RelayOptions.BACKOFF_MAX.check(maxDelay, initialDelay);
    RelayOptions.BACKOFF_MULTIPLIER.check(multiplier);
    RelayOptions.BACKOFF_JITTER.check(jitter);
  }

  /** The defaults: 1 s, doubling, capped at 5 min, 20% jitter. */
  public static Backoff defaults() {
    return new Backoff(
        DEFAULT_INITIAL_DELAY, DEFAULT_MAX_DELAY, DEFAULT_MULTIPLIER, DEFAULT_JITTER);
  }

  /** Exponential from {@code initialDelay} to {@code maxDelay}, doubling, 20% jitter. */
  public static Backoff exponential(Duration initialDelay, Duration maxDelay) {
    return new Backoff(initialDelay, maxDelay, DEFAULT_MULTIPLIER, DEFAULT_JITTER);
  }

  /** This backoff with another jitter. */
  public Backoff withJitter(double jitter) {
    return new Backoff(initialDelay, maxDelay, multiplier, jitter);
  }

  /** This backoff with another multiplier. */
  public Backoff withMultiplier(double multiplier) {
    return new Backoff(initialDelay, maxDelay, multiplier, jitter);
  }

  /**
   * The delay after {@code failures} failed attempts.
   *
   * @param failures at least 1
   * @param random the source of jitter
   */
  public Duration delayAfter(int failures, RandomGenerator random) {
    double nominal =
        (double) initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, failures - 1));
    double capped = Math.min(nominal, (double) maxDelay.toMillis());
    double jittered = capped * (1.0 - jitter * random.nextDouble());
    return Duration.ofMillis(Math.max(1, Math.round(jittered)));
  }
}
