package dev.txoutbox.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.Printable;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The retry policies of a {@link RelayConfig} in the words and units of the CLI's flags: for the
 * relay's start-up line, and for {@code status} as text rows and JSON. Stateless.
 */
final class RetryPolicyText {

  private RetryPolicyText() {}

  /** {@code policy} as the flags would set it: {@code max attempts 10, backoff 1s to 5m x2 …}. */
  static String describe(RetryPolicy policy) {
    Backoff b = policy.backoff();
    return "max attempts "
        + policy.maxAttempts()
        + ", backoff "
        + DurationText.of(b.initialDelay())
        + " to "
        + DurationText.of(b.maxDelay())
        + " x"
        + number(b.multiplier())
        + " jitter "
        + number(b.jitter())
        + ", "
        + (policy.maxAge() == null ? "no max age" : "max age " + DurationText.of(policy.maxAge()));
  }

  /**
   * What the start-up line adds to {@code backoff I to M} for the default policy: the multiplier
   * and jitter when not the defaults, and the max age when there is one; empty otherwise.
   */
  static String defaultExtras(RelayConfig c) {
    Backoff b = c.backoff();
    Backoff d = Backoff.defaults();
    boolean shape = b.multiplier() != d.multiplier() || b.jitter() != d.jitter();
    return (shape ? " x" + number(b.multiplier()) + " jitter " + number(b.jitter()) : "")
        + (c.maxAge() == null ? "" : ", max age " + DurationText.of(c.maxAge()));
  }

  /**
   * The per-type policies for the start-up line, {@code ; retry policies: event type
   * 'payment.captured' max attempts 200, …; aggregate type 'order' …}, or empty when there are
   * none.
   */
  static String perType(RelayConfig c) {
    List<String> parts = new ArrayList<>();
    c.eventTypeRetryPolicies()
        .forEach((t, p) -> parts.add("event type '" + Printable.of(t) + "' " + describe(p)));
    c.aggregateTypeRetryPolicies()
        .forEach((t, p) -> parts.add("aggregate type '" + Printable.of(t) + "' " + describe(p)));
    return parts.isEmpty() ? "" : "; retry policies: " + String.join("; ", parts);
  }

  /**
   * Rows of {@code status}: {@code retry default}, then one {@code retry event type} or {@code
   * retry aggregate type} per type, each as {@code row} lays out a name and a value.
   */
  static List<String> rows(RelayConfig c, java.util.function.BinaryOperator<String> row) {
    List<String> rows = new ArrayList<>();
    rows.add(row.apply("retry default", describe(c.defaultRetryPolicy())));
    c.eventTypeRetryPolicies()
        .forEach(
            (t, p) ->
                rows.add(row.apply("retry event type", Printable.of(t) + ": " + describe(p))));
    c.aggregateTypeRetryPolicies()
        .forEach(
            (t, p) ->
                rows.add(row.apply("retry aggregate type", Printable.of(t) + ": " + describe(p))));
    return rows;
  }

  /**
   * {@code retry_policies} of {@code status --json}: {@code default}, {@code event_types} and
   * {@code aggregate_types}, each policy with durations in seconds.
   */
  static void json(ObjectNode parent, RelayConfig c) {
    ObjectNode o = parent.putObject("retry_policies");
    json(o.putObject("default"), c.defaultRetryPolicy());
    perType(o.putObject("event_types"), c.eventTypeRetryPolicies());
    perType(o.putObject("aggregate_types"), c.aggregateTypeRetryPolicies());
  }

  private static void perType(ObjectNode o, Map<String, RetryPolicy> policies) {
    policies.forEach((t, p) -> json(o.putObject(t), p));
  }

  private static void json(ObjectNode o, RetryPolicy p) {
    o.put("max_attempts", p.maxAttempts());
    o.put("backoff_initial_seconds", seconds(p.backoff().initialDelay()));
    o.put("backoff_max_seconds", seconds(p.backoff().maxDelay()));
    o.put("backoff_multiplier", p.backoff().multiplier());
    o.put("backoff_jitter", p.backoff().jitter());
    if (p.maxAge() == null) {
      o.putNull("max_age_seconds");
    } else {
      o.put("max_age_seconds", seconds(p.maxAge()));
    }
  }

  private static double seconds(Duration d) {
    return d.toMillis() / 1000.0;
  }

  /** {@code x} without a needless fraction: {@code 2}, {@code 1.5}, {@code 0.2}. */
  static String number(double x) {
    return BigDecimal.valueOf(x).stripTrailingZeros().toPlainString();
  }
}
