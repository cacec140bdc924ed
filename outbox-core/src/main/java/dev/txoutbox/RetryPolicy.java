package dev.txoutbox;

import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How the relay retries an event whose publication failed: how many attempts it gets, the backoff
 * between them and, optionally, an age after which a still-failing event becomes a dead letter
 * whatever its attempts. A relay has one default policy ({@link RelayConfig.Builder#maxAttempts},
 * {@link RelayConfig.Builder#backoff}) and may give an event type or an aggregate type its own
 * ({@link RelayConfig.Builder#retryPolicy(String, RetryPolicy)}).
 *
 * <p>A policy decides only failures the broker reported. While the broker is unavailable, events
 * are not attempted and no policy counts anything: a day-long outage does not make a dead letter.
 *
 * <p>Immutable and thread-safe. A final class with factories and withers rather than a record, so
 * that a setting can be added later without breaking callers.
 */
public final class RetryPolicy {

  /** The largest {@code maxAttempts}: 1,000. */
  public static final int MAX_ATTEMPTS_LIMIT = 1000;

  private final int maxAttempts;
  private final Backoff backoff;
  private final @Nullable Duration maxAge;

  private RetryPolicy(int maxAttempts, Backoff backoff, @Nullable Duration maxAge) {
    RelayOptions.MAX_ATTEMPTS.check(maxAttempts);
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    if (maxAge != null) {
      RelayOptions.MAX_AGE.check(maxAge);
    }
    this.maxAttempts = maxAttempts;
    this.maxAge = maxAge;
  }

  /**
   * At most {@code maxAttempts} attempts, {@code backoff} between them, no age limit.
   *
   * @throws IllegalArgumentException if {@code maxAttempts} is not between 1 and {@value
   *     #MAX_ATTEMPTS_LIMIT}
   */
  public static RetryPolicy of(int maxAttempts, Backoff backoff) {
    return new RetryPolicy(maxAttempts, backoff, null);
  }

  /**
   * This policy, and an event still failing once it is {@code maxAge} old (from its {@code
   * created_at}) becomes a dead letter at that failure, whatever attempts it has left. A retry due
   * after that age still runs: the age is checked when an attempt fails, not by a timer.
   *
   * @throws IllegalArgumentException if {@code maxAge} is not positive
   */
  public RetryPolicy withMaxAge(Duration maxAge) {
    return new RetryPolicy(maxAttempts, backoff, Objects.requireNonNull(maxAge, "maxAge"));
  }

  /** Attempts before an event becomes a dead letter, 1 to {@value #MAX_ATTEMPTS_LIMIT}. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The delay before each next attempt. */
  public Backoff backoff() {
    return backoff;
  }

  /** The age after which a failure makes a dead letter, or null for none. */
  public @Nullable Duration maxAge() {
    return maxAge;
  }

  /**
   * Whether a failed attempt number {@code attempt} of an event created at {@code createdAt},
   * failing at {@code failedAt}, is its last: it used its attempts, or it is older than {@link
   * #maxAge()}.
   */
  public boolean exhausted(int attempt, Instant createdAt, Instant failedAt) {
    if (attempt >= maxAttempts) {
      return true;
    }
    return maxAge != null && !failedAt.isBefore(createdAt.plus(maxAge));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RetryPolicy p
        && maxAttempts == p.maxAttempts
        && backoff.equals(p.backoff)
        && Objects.equals(maxAge, p.maxAge);
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxAttempts, backoff, maxAge);
  }

  /** The policy for a log line, durations written the way the CLI reads them. */
  @Override
  public String toString() {
    return "maxAttempts="
        + maxAttempts
        + ", backoff "
        + DurationText.of(backoff.initialDelay())
        + " to "
        + DurationText.of(backoff.maxDelay())
        + " x"
        + backoff.multiplier()
        + " jitter "
        + backoff.jitter()
        + (maxAge == null ? "" : ", maxAge " + DurationText.of(maxAge));
  }
}
