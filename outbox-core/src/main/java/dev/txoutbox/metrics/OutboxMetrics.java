package dev.txoutbox.metrics;

import dev.txoutbox.spi.DurationText;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how a relay registers its Micrometer meters: the registry, how often the backlog gauges
 * are refreshed and how many event types get a tag value of their own. Give it to {@code
 * OutboxRelay.builder().metrics(...)}, or just the registry with {@code metrics(registry)}; the
 * relay does the rest, the way a HikariCP pool does with its metric registry:
 *
 * <ul>
 *   <li>it registers the meters at {@code build()}, tagged {@code relay=<RelayConfig.name()>} (a
 *       second relay with the same name in the same registry is refused there);
 *   <li>its backlog gauges read the relay's own {@code admin()}, on the relay's database and
 *       schema, so they cannot watch another outbox than the one the relay drains;
 *   <li>{@code close()} on the relay stops their refresh thread and removes every meter.
 * </ul>
 *
 * <p>The meters, as a Prometheus registry renders them:
 *
 * <ul>
 *   <li>{@code outbox_events_published_total} — events the broker acknowledged;
 *   <li>{@code outbox_events_failed_total{event_type}} — failed publish attempts, retried or dead
 *       lettered;
 *   <li>{@code outbox_events_dead_lettered_total{event_type}} — events that became dead letters;
 *   <li>{@code outbox_relay_cycle_failures_total} — relay cycles that failed as a whole (database
 *       unreachable, for instance);
 *   <li>{@code outbox_batch_duration_seconds} — claim-to-commit time of each batch, with a
 *       histogram;
 *   <li>{@code outbox_broker_available} (1 or 0) and {@code outbox_broker_outages_total} — whether
 *       the relay has paused claiming because the publisher reports the broker unavailable;
 *   <li>{@code outbox_events_pending}, {@code outbox_dead_letters}, {@code
 *       outbox_oldest_pending_age_seconds} — the backlog of the relay's outbox table.
 * </ul>
 *
 * <p>The backlog gauges read a cached {@link dev.txoutbox.OutboxStatus} that one daemon thread
 * ({@code outbox-relay-<relay>-metrics}) refreshes every {@link Builder#refreshInterval(Duration)
 * refresh interval}, from the relay's {@code build()} to its {@code close()}, so a scrape never
 * queries the database. They read {@code NaN} until the first refresh; a failed refresh is logged
 * and keeps the last values.
 *
 * <p>The {@code event_type} tag has at most {@link Builder#maxEventTypes(int) maxEventTypes} values
 * (200 by default): the first event types seen get their own, every later one is counted under
 * {@code event_type="other"} (logged once at WARN), so an outbox with unbounded event types cannot
 * flood the registry with time series. A real event type named {@code other} shares that value.
 *
 * <p>Micrometer is an optional dependency: a relay never given metrics never loads this class.
 *
 * <p>This type is immutable and thread-safe; one value may serve several relays.
 */
public final class OutboxMetrics {

  /** Default {@link Builder#refreshInterval(Duration)}: 15 s. */
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(15);

  /** Default {@link Builder#maxEventTypes(int)}: 200. */
  public static final int DEFAULT_MAX_EVENT_TYPES = 200;

  /** Largest {@link Builder#maxEventTypes(int)}: 10,000. */
  public static final int MAX_EVENT_TYPES = 10_000;

  private final MeterRegistry registry;
  private final Duration refreshInterval;
  private final int maxEventTypes;

  private OutboxMetrics(Builder b) {
    this.registry = b.registry;
    this.refreshInterval = b.refreshInterval;
    this.maxEventTypes = b.maxEventTypes;
  }

  /**
   * The meters in {@code registry} with the default settings.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public static OutboxMetrics in(MeterRegistry registry) {
    return builder(registry).build();
  }

  /**
   * Starts configuring metrics in {@code registry}.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(Objects.requireNonNull(registry, "registry"));
  }

  /** The registry the relay's meters are registered in. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The wait between two refreshes of the backlog gauges. Defaults to 15 s. */
  public Duration refreshInterval() {
    return refreshInterval;
  }

  /** How many event types get an {@code event_type} tag value of their own. Defaults to 200. */
  public int maxEventTypes() {
    return maxEventTypes;
  }

  /** The settings for a log line, such as {@code PrometheusMeterRegistry, refresh 15s, ...}. */
  @Override
  public String toString() {
    return registry.getClass().getSimpleName()
        + ", refresh "
        + DurationText.of(refreshInterval)
        + ", maxEventTypes "
        + maxEventTypes;
  }

  /** Configures {@link OutboxMetrics}. Not thread-safe. */
  public static final class Builder {
    private final MeterRegistry registry;
    private Duration refreshInterval = DEFAULT_REFRESH_INTERVAL;
    private int maxEventTypes = DEFAULT_MAX_EVENT_TYPES;

    private Builder(MeterRegistry registry) {
      this.registry = registry;
    }

    /**
     * How often the backlog gauges are refreshed, counted from the end of one refresh to the start
     * of the next; each refresh is a few index probes. Defaults to 15 s.
     *
     * @throws NullPointerException if {@code refreshInterval} is null
     */
    public Builder refreshInterval(Duration refreshInterval) {
      this.refreshInterval = Objects.requireNonNull(refreshInterval, "refreshInterval");
      return this;
    }

    /**
     * How many event types get an {@code event_type} tag value of their own on the failure
     * counters; later ones are counted under {@code other}. Defaults to {@value
     * OutboxMetrics#DEFAULT_MAX_EVENT_TYPES}.
     *
     * @throws IllegalArgumentException if {@code maxEventTypes} is not between 1 and {@value
     *     OutboxMetrics#MAX_EVENT_TYPES}
     */
    public Builder maxEventTypes(int maxEventTypes) {
      if (maxEventTypes < 1 || maxEventTypes > MAX_EVENT_TYPES) {
        throw new IllegalArgumentException(
            "maxEventTypes must be between 1 and " + MAX_EVENT_TYPES + " but was " + maxEventTypes);
      }
      this.maxEventTypes = maxEventTypes;
      return this;
    }

    /**
     * Checks the settings and makes them.
     *
     * @throws IllegalArgumentException if {@code refreshInterval} is not positive
     */
    public OutboxMetrics build() {
      if (refreshInterval.isNegative() || refreshInterval.isZero()) {
        throw new IllegalArgumentException(
            "refreshInterval must be positive but was " + refreshInterval);
      }
      return new OutboxMetrics(this);
    }
  }
}
