package dev.txoutbox.cli;

import dev.txoutbox.metrics.OutboxMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.time.Duration;

/**
 * The meters the {@code relay} command exposes on {@code /metrics}: the JVM's, bound here, and the
 * outbox's own ({@link OutboxMetrics}: published, failed, dead-lettered, batch duration, backlog
 * gauges), which the relay registers and removes itself. Not thread-safe.
 */
final class RelayMetrics implements AutoCloseable {

  private final OutboxMetrics outbox;
  private final JvmGcMetrics gc;

  private RelayMetrics(OutboxMetrics outbox, JvmGcMetrics gc) {
    this.outbox = outbox;
    this.gc = gc;
  }

  /**
   * Registers the JVM's meters in {@code registry}, and says how the relay registers its own there:
   * its backlog gauges refreshed every {@code refreshInterval}, at most {@code maxEventTypes} event
   * types with a tag value of their own.
   */
  static RelayMetrics bind(MeterRegistry registry, Duration refreshInterval, int maxEventTypes) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    OutboxMetrics outbox =
        OutboxMetrics.builder(registry)
            .refreshInterval(refreshInterval)
            .maxEventTypes(maxEventTypes)
            .build();
    return new RelayMetrics(outbox, gc);
  }

  /** The relay's metrics settings, for {@code OutboxRelay.builder().metrics(...)}. */
  OutboxMetrics outbox() {
    return outbox;
  }

  @Override
  public void close() {
    gc.close();
  }
}
