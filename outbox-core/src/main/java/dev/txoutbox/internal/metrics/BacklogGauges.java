package dev.txoutbox.internal.metrics;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.internal.relay.RelayThreads;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backlog gauges (pending, dead letters, oldest pending age). They read the last {@link
 * OutboxStatus} that one daemon thread fetches every refresh interval, so a scrape never queries
 * the database. Before the first successful refresh they read {@code NaN}; a failed refresh keeps
 * the last values. Thread-safe.
 */
final class BacklogGauges {

  private static final Logger log = LoggerFactory.getLogger(BacklogGauges.class);

  private final OutboxAdmin admin;
  private final String relayName;
  private final MeterRegistry registry;
  private final List<Meter> gauges;
  private final Duration interval;
  private final ScheduledExecutorService scheduler;
  private volatile @Nullable OutboxStatus last;
  private boolean failing; // only touched by refresh(), which is synchronized

  BacklogGauges(
      MeterRegistry registry,
      Tags tags,
      OutboxAdmin admin,
      String relayName,
      Duration interval,
      RelayThreads threads) {
    this.registry = registry;
    this.admin = admin;
    this.relayName = relayName;
    this.interval = interval;
    this.gauges =
        List.of(
            gauge(
                MeterNames.PENDING,
                "Events waiting to be published, due or not",
                null,
                tags,
                OutboxStatus::pending),
            gauge(
                MeterNames.DEAD_LETTERS,
                "Events given up on, waiting for an operator to requeue or purge them",
                null,
                tags,
                OutboxStatus::deadLetters),
            gauge(
                MeterNames.OLDEST_PENDING_AGE,
                "How long the longest-waiting due event has waited, 0 when none is due",
                "seconds",
                tags,
                s -> s.oldestPendingAge().map(BacklogGauges::seconds).orElse(0.0)));
    this.scheduler = Executors.newSingleThreadScheduledExecutor(threads.factory("metrics"));
  }

  /** Starts refreshing: at once, then every interval after the previous refresh ended. */
  void start() {
    // Never cancelled (close() shuts the scheduler down) and never failing (refreshQuietly()
    // catches what a refresh throws): the future has nothing to tell.
    Future<?> unused =
        scheduler.scheduleWithFixedDelay(
            this::refreshQuietly, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
  }

  private Meter gauge(
      String name,
      String description,
      @Nullable String baseUnit,
      Tags tags,
      ToDoubleFunction<OutboxStatus> value) {
    return Gauge.builder(
            name,
            () -> {
              OutboxStatus s = last;
              return s == null ? Double.NaN : value.applyAsDouble(s);
            })
        .description(description)
        .baseUnit(baseUnit)
        .tags(tags)
        .strongReference(true)
        .register(registry);
  }

  private static double seconds(Duration d) {
    return d.getSeconds() + d.getNano() / 1e9;
  }

  /** Reads the status now; throws what the admin throws, keeping the last values. */
  synchronized void refresh() {
    last = admin.status();
  }

  private synchronized void refreshQuietly() {
    try {
      refresh();
      if (failing) {
        failing = false;
        log.info("outbox metrics of relay {}: backlog refresh works again", relayName);
      }
    } catch (Throwable e) {
      if (e instanceof VirtualMachineError fatal) {
        throw fatal;
      }
      if (scheduler.isShutdown()) {
        return; // closed while querying: the failure is ours, not the database's
      }
      if (failing) {
        log.debug("outbox metrics of relay {}: backlog refresh failed again", relayName, e);
      } else {
        failing = true;
        log.warn(
            "outbox metrics of relay {}: backlog refresh failed, the gauges keep their last values"
                + " until it works again: {}",
            relayName,
            e.toString(),
            e);
      }
    }
  }

  /** Stops the refresh thread and removes the gauges. Idempotent. */
  void close() {
    scheduler.shutdownNow();
    gauges.forEach(registry::remove);
  }
}
