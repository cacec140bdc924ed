package dev.txoutbox.internal.metrics;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.relay.RelayThreads;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Micrometer meters of one relay and of the backlog of its outbox, each tagged {@code
 * relay=<name>} and described; {@link OutboxMetrics} lists them with their Prometheus names.
 * Registered by the relay's builder with the relay's own name and admin, fed as one of the relay's
 * listeners and closed by the relay's {@code close()}, so no caller can point them at another
 * relay's name or at another schema. Thread-safe.
 */
public final class RelayMeters implements RelayListener, AutoCloseable {

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

  private RelayMeters(
      OutboxMetrics settings, String relayName, OutboxAdmin admin, RelayThreads threads) {
    this.registry = settings.registry();
    Tags tags = Tags.of(MeterNames.RELAY_TAG, relayName);
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
    EventTypeTags eventTypes = new EventTypeTags(settings.maxEventTypes(), relayName);
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
    this.backlog =
        new BacklogGauges(registry, tags, admin, relayName, settings.refreshInterval(), threads);
  }

  /**
   * Registers the meters of relay {@code relayName} in the registry of {@code settings} and starts
   * refreshing the backlog gauges through {@code admin}, at once and then every refresh interval.
   *
   * @throws IllegalStateException if the registry already holds outbox meters of this relay name
   */
  public static RelayMeters register(OutboxMetrics settings, String relayName, OutboxAdmin admin) {
    return register(settings, relayName, admin, RelayThreads.forRelay(relayName, null));
  }

  /**
   * As {@link #register(OutboxMetrics, String, OutboxAdmin)}, refreshing on a thread of {@code
   * threads} (role {@code metrics}).
   *
   * @throws IllegalStateException if the registry already holds outbox meters of this relay name
   */
  public static RelayMeters register(
      OutboxMetrics settings, String relayName, OutboxAdmin admin, RelayThreads threads) {
    if (settings.registry().find(MeterNames.PUBLISHED).tag(MeterNames.RELAY_TAG, relayName).meter()
        != null) {
      throw new IllegalStateException(
          "the relay name must be unique in the meter registry but '"
              + relayName
              + "' already has outbox meters; close that relay first or give this one another"
              + " RelayConfig name");
    }
    RelayMeters meters = new RelayMeters(settings, relayName, admin, threads);
    meters.backlog.start();
    return meters;
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
   * the same every refresh interval.
   *
   * @throws IllegalStateException if closed
   * @throws RuntimeException what {@link OutboxAdmin#status()} throws; the gauges keep their values
   */
  void refresh() {
    if (closed.get()) {
      throw new IllegalStateException("the relay's meters must be open to refresh but are closed");
    }
    backlog.refresh();
  }

  /**
   * Stops the refresh thread and removes every meter of this relay from the registry. Events
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
}
