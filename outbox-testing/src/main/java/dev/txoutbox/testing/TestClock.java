package dev.txoutbox.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link Clock} that moves only when the test says so, to make delayed events and retry backoff
 * due without sleeping. Give it to the relay ({@code OutboxRelay.builder().clock(clock)}), then
 * {@link #advance(Duration)} it between drains.
 *
 * <p>PostgreSQL keeps microseconds: {@link #now()} starts at the current time truncated to
 * microseconds, so an instant written to the database reads back equal.
 *
 * <p>This class is thread-safe: every view made by {@link #withZone(ZoneId)} shares one instant.
 */
public final class TestClock extends Clock {

  private final AtomicReference<Instant> now;
  private final ZoneId zone;

  private TestClock(AtomicReference<Instant> now, ZoneId zone) {
    this.now = now;
    this.zone = zone;
  }

  /**
   * A clock standing at {@code start}, in UTC.
   *
   * @throws NullPointerException if {@code start} is null
   */
  public static TestClock at(Instant start) {
    return new TestClock(
        new AtomicReference<>(Objects.requireNonNull(start, "start")), ZoneOffset.UTC);
  }

  /** A clock standing at the current time, truncated to microseconds, in UTC. */
  public static TestClock now() {
    return at(Instant.now().truncatedTo(ChronoUnit.MICROS));
  }

  /**
   * Moves the clock forward by {@code amount}.
   *
   * @return the new instant
   * @throws NullPointerException if {@code amount} is null
   * @throws IllegalArgumentException if {@code amount} is negative
   */
  public Instant advance(Duration amount) {
    Objects.requireNonNull(amount, "amount");
    if (amount.isNegative()) {
      throw new IllegalArgumentException("amount must not be negative but was " + amount);
    }
    return now.updateAndGet(i -> i.plus(amount));
  }

  /**
   * Sets the clock to {@code instant}, forward or back.
   *
   * @throws NullPointerException if {@code instant} is null
   */
  public void set(Instant instant) {
    now.set(Objects.requireNonNull(instant, "instant"));
  }

  @Override
  public Instant instant() {
    return now.get();
  }

  @Override
  public ZoneId getZone() {
    return zone;
  }

  /** A view in {@code zone} that shares this clock's instant: moving either moves both. */
  @Override
  public TestClock withZone(ZoneId zone) {
    return new TestClock(now, Objects.requireNonNull(zone, "zone"));
  }

  @Override
  public String toString() {
    return "TestClock[" + now.get() + ", " + zone + "]";
  }
}
