package dev.txoutbox.examples.orders;

import dev.txoutbox.schema.OutboxSchema;
import java.time.Duration;
import java.util.Objects;

/**
 * How one run of the example goes. Immutable.
 *
 * @param orders orders to create
 * @param writers threads creating orders concurrently
 * @param brokerOutage whether to stop the (embedded) broker once a third of the orders are written
 * @param outage how long the broker stays down before it is started again
 * @param schema the schema holding the outbox and the order service's tables; the downstream
 *     consumer's tables are in {@link #consumerSchema()}
 * @param drainTimeout how long to wait, after the last order is written, for every event to arrive
 */
record RunOptions(
    int orders,
    int writers,
    boolean brokerOutage,
    Duration outage,
    String schema,
    Duration drainTimeout) {

  /** Default {@code orders}: 20,000. */
  static final int DEFAULT_ORDERS = 20_000;

  /** Default {@code writers}: 4. */
  static final int DEFAULT_WRITERS = 4;

  /** Default {@code outage}: 5 seconds. */
  static final Duration DEFAULT_OUTAGE = Duration.ofSeconds(5);

  /** Default {@code schema}. */
  static final String DEFAULT_SCHEMA = "orders_example";

  /** What the consumer's schema adds to {@code schema}. */
  static final String CONSUMER_SCHEMA_SUFFIX = "_consumer";

  /** Longest {@code schema}: with the suffix, the consumer's schema name stays valid. */
  static final int MAX_SCHEMA_LENGTH =
      OutboxSchema.MAX_SCHEMA_NAME_LENGTH - CONSUMER_SCHEMA_SUFFIX.length();

  /** Default {@code drainTimeout}: 2 minutes. */
  static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofMinutes(2);

  /**
   * @throws IllegalArgumentException if a number is out of range; the message names the option
   */
  RunOptions {
    Objects.requireNonNull(outage, "outage");
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    if (orders < 1 || orders > 10_000_000) {
      throw new IllegalArgumentException("--orders must be between 1 and 10,000,000: " + orders);
    }
    if (writers < 1 || writers > 64) {
      throw new IllegalArgumentException("--writers must be between 1 and 64: " + writers);
    }
    if (outage.isNegative() || outage.compareTo(Duration.ofMinutes(10)) > 0) {
      throw new IllegalArgumentException("--outage-seconds must be between 0 and 600: " + outage);
    }
    if (drainTimeout.isNegative() || drainTimeout.isZero()) {
      throw new IllegalArgumentException("--timeout-seconds must be positive: " + drainTimeout);
    }
    if (schema.length() > MAX_SCHEMA_LENGTH) {
      throw new IllegalArgumentException(
          "--schema must be at most "
              + MAX_SCHEMA_LENGTH
              + " characters, so that the consumer's schema <schema>"
              + CONSUMER_SCHEMA_SUFFIX
              + " is a valid name too, but has "
              + schema.length());
    }
  }

  /**
   * The downstream consumer's schema, {@code <schema>_consumer}: its inbox and its {@code
   * customer_totals}. In a real deployment it is in the consumer's own database.
   */
  String consumerSchema() {
    return schema + CONSUMER_SCHEMA_SUFFIX;
  }
}
