package dev.txoutbox.metrics;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Micrometer meters for one relay and the backlog of its outbox, each tagged {@code relay=<name>}
 * and described. As a Prometheus registry renders them:
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
 *   <li>{@code outbox_events_pending}, {@code outbox_dead_letters}, {@code
 *       outbox_oldest_pending_age_seconds} — the backlog of the outbox table.
 * </ul>
 *
 * <p>The counters and the timer are fed by the relay: add this object with {@code
 * OutboxRelay.builder().listener(metrics)}. The backlog gauges describe the table, not the relay;
 * they read a cached {@link dev.txoutbox.OutboxStatus} that one daemon thread ({@code
 * outbox-metrics-<relay>}) refreshes through the {@link OutboxAdmin} every {@link
 * Builder#refreshInterval(Duration) refresh interval}, so a scrape never queries the database. They
 * read {@code NaN} until the first refresh; a failed refresh is logged and keeps the last values.
 *
 * <pre>{@code
 * OutboxMetrics metrics = OutboxMetrics.builder(registry)
 *     .relayName("orders")
 *     .admin(OutboxAdmin.create(dataSource, "public"))
 *     .build();
 * OutboxRelay relay = OutboxRelay.builder()
 *     .dataSource(dataSource)
 *     .publisher(publisher)
 *     .config(RelayConfig.builder().name("orders").build())
 *     .listener(metrics)
 *     .build();
 * }</pre>
 *
 * <p>The {@code event_type} tag has at most {@link Builder#maxEventTypes(int) maxEventTypes} values
 * (200 by default): the first event types seen get their own, every later one is counted under
 * {@code event_type="other"} (logged once at WARN), so an outbox with unbounded event types cannot
 * flood the registry with time series. A real event type named {@code other} shares that value.
 *
 * <p>{@link #close()} stops the refresh thread and removes every meter from the registry; close it
 * after the relay. Use one instance per relay name and registry.
 *
 * <p>This type is thread-safe.
 */
public final class OutboxMetrics implements RelayListener, AutoCloseable {

  /** Default {@link Builder#refreshInterval(Duration)}: 15 s. */
  public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(15);

  /** Default {@link Builder#maxEventTypes(int)}: 200. */
  public static final int DEFAULT_MAX_EVENT_TYPES = 200;

  /** Largest {@link Builder#maxEventTypes(int)}: 10,000. */
  public static final int MAX_EVENT_TYPES = 10_000;

  private final MeterRegistry registry;
  private final Counter published;
  private final Counter cycleFailures;
  private final Timer batchDuration;
  private final EventTypeCounters failed;
  private final EventTypeCounters deadLettered;
  private final BacklogGauges backlog;
  private final AtomicInteger brokerAvailable = new AtomicInteger(1);
  private final Gauge brokerAvailableGauge;
  private final Counter brokerOutages;
  private final AtomicBoolean closed = new AtomicBoolean();

  private OutboxMetrics(Builder b) {
    this.registry = b.registry;
    Tags tags = Tags.of(MeterNames.RELAY_TAG, b.relayName);
    this.published =
        Counter.builder(MeterNames.PUBLISHED)
            .description("Events published: acknowledged by the broker and completed")
            .tags(tags)
            .register(registry);
    this.cycleFailures =
        Counter.builder(MeterNames.CYCLE_FAILURES)
            .description("Relay cycles that failed as a whole, such as when the database is down")
            .tags(tags)
            .register(registry);
    this.batchDuration =
        Timer.builder(MeterNames.BATCH_DURATION)
            .description("Time from claiming a batch to committing its outcome")
            .tags(tags)
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofMinutes(2))
            .register(registry);
    EventTypeTags eventTypes = new EventTypeTags(b.maxEventTypes, b.relayName);
    this.failed =
        new EventTypeCounters(
            registry,
            MeterNames.FAILED,
            "Failed publish attempts, whether retried or dead-lettered",
            tags,
            eventTypes);
    this.deadLettered =
        new EventTypeCounters(
            registry,
            MeterNames.DEAD_LETTERED,
            "Events that became dead letters",
            tags,
            eventTypes);
    this.brokerAvailableGauge =
        Gauge.builder(MeterNames.BROKER_AVAILABLE, brokerAvailable, AtomicInteger::get)
            .description(
                "1 while the broker answers, 0 while the relay has paused claiming because the"
                    + " publisher reports the broker unavailable")
            .tags(tags)
            .register(registry);
    this.brokerOutages =
        Counter.builder(MeterNames.BROKER_OUTAGES)
            .description("Times the broker became unavailable and the relay paused claiming")
            .tags(tags)
            .register(registry);
    this.backlog = new BacklogGauges(registry, tags, b.admin, b.relayName, b.refreshInterval);
    backlog.start();
  }

  /**
   * Starts configuring metrics in {@code registry}.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public static Builder builder(MeterRegistry registry) {
    return new Builder(Objects.requireNonNull(registry, "registry"));
  }

  @Override
  public void published(OutboxMessage message) {
    published.increment();
  }

  @Override
  public void willRetry(OutboxMessage message, PublishResult failure, Duration delay) {
    failed.increment(message.eventType());
  }

  @Override
  public void deadLettered(OutboxMessage message, PublishResult failure) {
    failed.increment(message.eventType());
    deadLettered.increment(message.eventType());
  }

  @Override
  public void batchCompleted(int claimed, int published, int failed, Duration duration) {
    batchDuration.record(duration);
  }

  @Override
  public void cycleFailed(Throwable error) {
    cycleFailures.increment();
  }

  @Override
  public void brokerUnavailable(String reason) {
    brokerAvailable.set(0);
    brokerOutages.increment();
  }

  @Override
  public void brokerAvailable(Duration outage) {
    brokerAvailable.set(1);
  }

  /**
   * Reads the backlog now, on the calling thread, and updates the gauges; the refresh thread does
   * the same every refresh interval. Useful before serving the first scrape.
   *
   * @throws IllegalStateException if closed
   * @throws RuntimeException what {@link OutboxAdmin#status()} throws; the gauges keep their values
   */
  public void refresh() {
    if (closed.get()) {
      throw new IllegalStateException("outbox metrics are closed");
    }
    backlog.refresh();
  }

  /**
   * Stops the refresh thread and removes every meter of this instance from the registry. Events
   * reported afterwards are ignored. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    backlog.close();
    failed.close();
    deadLettered.close();
    registry.remove(published);
    registry.remove(cycleFailures);
    registry.remove(batchDuration);
    registry.remove(brokerAvailableGauge);
    registry.remove(brokerOutages);
  }

  /** Configures {@link OutboxMetrics}. Not thread-safe. */
  public static final class Builder {
    private final MeterRegistry registry;
    private String relayName = RelayConfig.DEFAULT_NAME;
    private OutboxAdmin admin;
    private Duration refreshInterval = DEFAULT_REFRESH_INTERVAL;
    private int maxEventTypes = DEFAULT_MAX_EVENT_TYPES;

    private Builder(MeterRegistry registry) {
      this.registry = registry;
    }

    /**
     * The value of the {@code relay} tag, normally the relay's {@link RelayConfig#name()}. Defaults
     * to {@value RelayConfig#DEFAULT_NAME}.
     */
    public Builder relayName(String relayName) {
      this.relayName = Objects.requireNonNull(relayName, "relayName");
      return this;
    }

    /** Reads the backlog for the gauges; on the outbox the relay drains. Required. */
    public Builder admin(OutboxAdmin admin) {
      this.admin = Objects.requireNonNull(admin, "admin");
      return this;
    }

    /**
     * How often the backlog gauges are refreshed, counted from the end of one refresh to the start
     * of the next; each refresh is a few index probes. Defaults to 15 s.
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
     * Registers the meters and starts the refresh thread.
     *
     * @throws IllegalArgumentException if {@code relayName} is blank or longer than 64 characters,
     *     or {@code refreshInterval} is not positive
     * @throws IllegalStateException if no admin was given, or the registry already holds outbox
     *     meters for this relay name
     */
    public OutboxMetrics build() {
      if (relayName.isBlank() || relayName.length() > 64) {
        throw new IllegalArgumentException(
            "relayName must be 1 to 64 characters, not blank, but was '" + relayName + "'");
      }
      if (refreshInterval.isNegative() || refreshInterval.isZero()) {
        throw new IllegalArgumentException(
            "refreshInterval must be positive but was " + refreshInterval);
      }
      if (admin == null) {
        throw new IllegalStateException(
            "outbox metrics must be given an admin(...) to read the backlog but were not");
      }
      if (registry.find(MeterNames.PUBLISHED).tag(MeterNames.RELAY_TAG, relayName).meter()
          != null) {
        throw new IllegalStateException(
            "relayName must be unique in the registry but '"
                + relayName
                + "' already has outbox meters; close the other OutboxMetrics first or use"
                + " another relayName");
      }
      return new OutboxMetrics(this);
    }
  }
}
