package dev.txoutbox.cli;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.RelayListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The meters the {@code relay} command exposes on {@code /metrics}: the outbox's own, and the
 * JVM's. Closing removes the outbox meters and stops their refresh. Not thread-safe.
 */
final class RelayMetrics implements AutoCloseable {

  private final RelayListener listener;
  private final Runnable closeOutboxMeters;
  private final JvmGcMetrics gc;

  private RelayMetrics(RelayListener listener, Runnable closeOutboxMeters, JvmGcMetrics gc) {
    this.listener = listener;
    this.closeOutboxMeters = closeOutboxMeters;
    this.gc = gc;
  }

  /** Registers the meters of relay {@code relayName} in {@code registry}. */
  static RelayMetrics bind(MeterRegistry registry, String relayName, OutboxAdmin admin) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    // The outbox meters (dev.txoutbox.metrics.OutboxMetrics) plug in here.
    RelayListener outbox = RelayListener.none();
    return new RelayMetrics(outbox, () -> {}, gc);
  }

  /** The listener to add to the relay. */
  RelayListener listener() {
    return listener;
  }

  @Override
  public void close() {
    try {
      closeOutboxMeters.run();
    } finally {
      gc.close();
    }
  }
}
