package dev.txoutbox.spi;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The verdict of {@link Publisher#checkBroker(java.time.Duration)}: whether the broker answered and
 * accepted the publisher, for the relay's or the CLI's start-up. Immutable and thread-safe.
 *
 * @param status what the check found
 * @param detail what was checked and what it found, for operators, such as {@code RabbitMQ at
 *     amqp://app@rabbit:5672/shop accepted the connection}; never contains a secret
 * @param cause the exception behind a failed check, if any
 */
public record BrokerCheck(Status status, String detail, @Nullable Throwable cause) {

  /** What a broker check found. */
  public enum Status {
    /** The broker answered and accepted the publisher's connection and credentials. */
    REACHABLE,
    /**
     * The broker did not answer within the timeout, or refused the publisher (wrong credentials,
     * unknown virtual host, no permission): {@link #detail()} says which.
     */
    UNREACHABLE,
    /** The publisher has nothing to check (the default of {@link Publisher#checkBroker}). */
    NOT_CHECKED
  }

  /**
   * @throws NullPointerException if {@code status} or {@code detail} is null
   */
  public BrokerCheck {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(detail, "detail");
  }

  /** The broker answered and accepted the publisher; {@code detail} says what was checked. */
  public static BrokerCheck reachable(String detail) {
    return new BrokerCheck(Status.REACHABLE, detail, null);
  }

  /** The broker did not answer or refused the publisher; {@code reason} says why. */
  public static BrokerCheck unreachable(String reason, @Nullable Throwable cause) {
    return new BrokerCheck(Status.UNREACHABLE, reason, cause);
  }

  /** Nothing was checked: {@code detail} says so, such as {@code rabbitmq: no broker check}. */
  public static BrokerCheck notChecked(String detail) {
    return new BrokerCheck(Status.NOT_CHECKED, detail, null);
  }

  /**
   * {@code timeout}, the argument of {@link Publisher#checkBroker}, if it is positive: the one
   * check every implementation makes.
   *
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is zero or negative
   */
  public static Duration requirePositive(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException(
          "timeout must be positive but was " + DurationText.of(timeout));
    }
    return timeout;
  }

  /** Whether the check found the broker unreachable or refusing. */
  public boolean failed() {
    return status == Status.UNREACHABLE;
  }
}
