package dev.txoutbox.internal.metrics;

/**
 * The Micrometer names of the outbox meters, in Micrometer's dot notation. A Prometheus registry
 * renders them in snake case with the suffixes Prometheus expects: {@code _total} for counters,
 * {@code _seconds} for the timer and for the age gauge.
 */
final class MeterNames {

  /** Counter, rendered {@code outbox_events_published_total}. */
  static final String PUBLISHED = "outbox.events.published";

  /** Counter per event type, rendered {@code outbox_events_failed_total}. */
  static final String FAILED = "outbox.events.failed";

  /** Counter per event type, rendered {@code outbox_events_dead_lettered_total}. */
  static final String DEAD_LETTERED = "outbox.events.dead.lettered";

  /** Counter, rendered {@code outbox_relay_cycle_failures_total}. */
  static final String CYCLE_FAILURES = "outbox.relay.cycle.failures";

  /** Timer with a histogram, rendered {@code outbox_batch_duration_seconds}. */
  static final String BATCH_DURATION = "outbox.batch.duration";

  /** Gauge, rendered {@code outbox_events_pending}. */
  static final String PENDING = "outbox.events.pending";

  /** Gauge, rendered {@code outbox_dead_letters}. */
  static final String DEAD_LETTERS = "outbox.dead.letters";

  /** Gauge in seconds, rendered {@code outbox_oldest_pending_age_seconds}. */
  static final String OLDEST_PENDING_AGE = "outbox.oldest.pending.age";

  /**
   * Gauge, 1 while the broker answers and 0 while it is unavailable: {@code
   * outbox_broker_available}.
   */
  static final String BROKER_AVAILABLE = "outbox.broker.available";

  /** Counter, rendered {@code outbox_broker_outages_total}. */
  static final String BROKER_OUTAGES = "outbox.broker.outages";

  /** The tag naming the relay on every meter. */
  static final String RELAY_TAG = "relay";

  /** The tag naming the event type on the failure counters. */
  static final String EVENT_TYPE_TAG = "event_type";

  private MeterNames() {}
}
