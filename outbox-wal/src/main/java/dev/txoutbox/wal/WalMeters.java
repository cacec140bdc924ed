package dev.txoutbox.wal;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.metrics.OutboxMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's meters: the outbox meters every relay has ({@link OutboxMetrics}: published,
 * failed, dead-lettered, batch duration, broker availability, backlog), fed through {@link
 * #listener()}, and its own, tagged {@code relay=<name>} and described: the slot's lag in bytes
 * (read by one daemon thread every refresh interval, so that a scrape never queries the database)
 * and in seconds, the confirmed position, and the skipped events, reconnections and skipped
 * transactions. Registered by the relay's builder, started by its {@code start()} and removed by
 * its {@code close()}. The only class of the module that names Micrometer besides the builder's
 * {@code metrics(...)} methods. Thread-safe.
 */
final class WalMeters {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  /** Gauge in bytes, rendered {@code outbox_wal_slot_lag_bytes}. */
  static final String LAG_BYTES = "outbox.wal.slot.lag.bytes";

  /** Gauge in seconds, rendered {@code outbox_wal_slot_lag_seconds}. */
  static final String LAG_SECONDS = "outbox.wal.slot.lag.seconds";

  /** Gauge, rendered {@code outbox_wal_confirmed_lsn}. */
  static final String CONFIRMED_LSN = "outbox.wal.confirmed.lsn";

  /** Counter, rendered {@code outbox_wal_events_skipped_total}. */
  static final String SKIPPED = "outbox.wal.events.skipped";

  /** Counter, rendered {@code outbox_wal_reconnects_total}. */
  static final String RECONNECTS = "outbox.wal.reconnects";

  /** Counter, rendered {@code outbox_wal_skipped_transactions_total}. */
  static final String SKIPPED_TRANSACTIONS = "outbox.wal.skipped.transactions";

  /** The tag naming the relay, as on the polling relay's meters. */
  static final String RELAY_TAG = "relay";

  private final MeterRegistry registry;
  private final List<Meter> meters;
  private final WalRelay relay;
  private final OutboxMetrics settings;
  private final RelayKernel.Meters outbox;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile double lagBytes = Double.NaN;
  private volatile @Nullable ScheduledExecutorService refresher;

  private WalMeters(
      OutboxMetrics settings, String name, WalRelay relay, RelayKernel.Meters outbox) {
    this.registry = settings.registry();
    this.settings = settings;
    this.outbox = outbox;
    this.relay = relay;
    Tags tags = Tags.of(RELAY_TAG, name);
    this.meters =
        List.of(
            Gauge.builder(LAG_BYTES, this, m -> m.lagBytes)
                .description(
                    "WAL the replication slot retains: from its confirmed position to the server's"
                        + " current one; -1 if the slot does not exist, NaN before the first read")
                .baseUnit("bytes")
                .tags(tags)
                .register(registry),
            Gauge.builder(LAG_SECONDS, relay, WalRelay::slotLagSeconds)
                .description(
                    "Age of the oldest commit the relay has read but not yet confirmed to the slot;"
                        + " 0 when caught up")
                .baseUnit("seconds")
                .tags(tags)
                .register(registry),
            Gauge.builder(CONFIRMED_LSN, relay, r -> (double) r.confirmedLsn())
                .description("The last position confirmed to the slot, as a number")
                .tags(tags)
                .register(registry),
            FunctionCounter.builder(SKIPPED, relay, r -> (double) r.skippedEvents())
                .description(
                    "Events read from the stream but left to the polling relay: no longer pending,"
                        + " delayed, or behind an earlier pending event of their aggregate")
                .tags(tags)
                .register(registry),
            FunctionCounter.builder(RECONNECTS, relay, r -> (double) r.reconnects())
                .description("Times the stream was opened again after a failure")
                .tags(tags)
                .register(registry),
            FunctionCounter.builder(
                    SKIPPED_TRANSACTIONS, relay, r -> (double) r.skippedTransactions())
                .description(
                    "Transactions the slot was moved past because the server failed to decode them"
                        + " again and again; their events are left to the polling relay")
                .tags(tags)
                .register(registry));
  }

  /**
   * Registers the meters of relay {@code name} in the registry of {@code settings}, the backlog
   * gauges reading {@code admin}.
   *
   * @throws IllegalStateException if the registry already holds outbox or WAL meters of this relay
   *     name
   */
  static WalMeters register(
      OutboxMetrics settings, String name, WalRelay relay, OutboxAdmin admin) {
    if (settings.registry().find(LAG_BYTES).tag(RELAY_TAG, name).meter() != null) {
      throw new IllegalStateException(
          "the relay name must be unique in the meter registry but '"
              + name
              + "' already has WAL meters; close that relay first or give this one another"
              + " RelayConfig name");
    }
    RelayKernel.Meters outbox = RelayKernel.Meters.register(settings, name, admin, relay.threads);
    try {
      return new WalMeters(settings, name, relay, outbox);
    } catch (RuntimeException e) {
      outbox.close();
      throw e;
    }
  }

  /** Where the relay tells its outcomes, for the outbox meters. */
  RelayListener listener() {
    return outbox.listener();
  }

  /** Starts refreshing the lag in bytes: at once, then every refresh interval. */
  void start(String name) {
    ScheduledExecutorService s =
        Executors.newSingleThreadScheduledExecutor(relay.threads.factory("meters"));
    refresher = s;
    // In nanoseconds: a refresh interval below a millisecond is valid and toMillis() would be 0.
    long every = settings.refreshInterval().toNanos();
    s.scheduleWithFixedDelay(this::refresh, 0, every, TimeUnit.NANOSECONDS);
  }

  /** Reads the lag in bytes now; a failure keeps the last value. */
  void refresh() {
    try {
      lagBytes = relay.slotLagBytes();
    } catch (RuntimeException e) {
      log.warn("WAL relay meters: reading the slot lag failed: {}", e.toString());
    }
  }

  /** Stops the refresh thread and removes every meter. Idempotent. */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ScheduledExecutorService s = refresher;
    if (s != null) {
      s.shutdownNow();
    }
    meters.forEach(registry::remove);
    outbox.close();
  }
}
