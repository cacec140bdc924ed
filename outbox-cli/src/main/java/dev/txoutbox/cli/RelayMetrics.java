package dev.txoutbox.cli;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.RelayListener;
import dev.txoutbox.metrics.OutboxMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters the {@code relay} command exposes on {@code /metrics}: the outbox's own ({@link
 * OutboxMetrics}: published, failed, dead-lettered, batch duration, backlog gauges) and the JVM's.
 * Closing removes the outbox meters and stops their refresh. Not thread-safe.
 */
final class RelayMetrics implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RelayMetrics.class);

  private final OutboxMetrics outbox;
  private final JvmGcMetrics gc;

  private RelayMetrics(OutboxMetrics outbox, JvmGcMetrics gc) {
    this.outbox = outbox;
    this.gc = gc;
  }

  /**
   * Registers the meters of relay {@code relayName} in {@code registry}; the backlog gauges are
   * read through {@code admin} every {@code refreshInterval}, and once now; at most {@code
   * maxEventTypes} event types get a tag value of their own.
   */
  static RelayMetrics bind(
      MeterRegistry registry,
      String relayName,
      OutboxAdmin admin,
      Duration refreshInterval,
      int maxEventTypes) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    OutboxMetrics outbox =
        OutboxMetrics.builder(registry)
            .relayName(relayName)
            .admin(admin)
            .refreshInterval(refreshInterval)
            .maxEventTypes(maxEventTypes)
            .build();
    try {
      outbox.refresh();
    } catch (RuntimeException e) {
      log.warn("first read of the outbox backlog failed; the gauges read NaN until it works", e);
    }
    return new RelayMetrics(outbox, gc);
  }

  /** The listener to add to the relay. */
  RelayListener listener() {
    return outbox;
  }

  @Override
  public void close() {
    try {
      outbox.close();
    } finally {
      gc.close();
    }
  }
}
