package dev.txoutbox.wal;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.PublishTracer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's sweeper: the polling relay that retries, dead-letters and sweeps behind it, built
 * from the WAL relay's own data source, tables, publisher, listeners, clock, tracer and metrics
 * settings, and closed with it.
 *
 * <p>Its first poll comes one sweep interval after the stream opened ({@link #startLater()}), as
 * each later poll comes one interval after the one before: polling at once, it would take the
 * events committed since the slot's confirmed position (a restart's backlog) in {@code seq} order
 * while the stream publishes them in commit order, and two overlapping transactions commit in the
 * opposite order of their {@code seq}. So, as an {@link OutboxRelay}, it is running from the moment
 * its start is scheduled until it is closed, as a polling relay is running between its polls.
 *
 * <p>Thread-safe.
 */
final class WalSweeper implements OutboxRelay {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  private final OutboxRelay polling;
  private final Duration interval;
  private final Object lock = new Object();
  private boolean scheduled; // guarded by lock
  private boolean closed; // guarded by lock

  private final RelayKernel.Threads threads;

  private WalSweeper(OutboxRelay polling, Duration interval, RelayKernel.Threads threads) {
    this.polling = polling;
    this.interval = interval;
    this.threads = threads;
  }

  /**
   * The polling relay behind a WAL relay configured as {@code config}: named {@code
   * <name>-sweeper}, polling every {@code interval} and no more often, in the same ordering, so
   * that it keeps the order of an aggregate the WAL relay leaves to it.
   *
   * @throws RuntimeException whatever the polling relay's {@code build()} throws
   */
  static WalSweeper build(
      DataSource dataSource,
      OutboxTables tables,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      PublishTracer tracer,
      List<RelayListener> listeners,
      @Nullable OutboxMetrics metrics,
      Duration interval,
      RelayKernel.Threads threads) {
    RelayConfig sweeps =
        config.toBuilder()
            .name(config.name() + "-sweeper")
            .minPollInterval(interval)
            .maxPollInterval(interval)
            .vacuumInterval(null) // the WAL relay runs it, with or without a sweeper
            .build();
    OutboxRelay.Builder polling =
        OutboxRelay.builder()
            .dataSource(dataSource)
            .tables(tables)
            .publisher(publisher)
            .clock(clock)
            .publishTracer(tracer)
            .config(sweeps);
    if (threads.userFactory() != null) {
      polling.threadFactory(threads.userFactory());
    }
    listeners.forEach(polling::listener);
    if (metrics != null) {
      polling.metrics(metrics);
    }
    return new WalSweeper(polling.build(), interval, threads);
  }

  /**
   * Starts the polling relay one sweep interval from now, on a thread made then ({@code
   * outbox-wal-<name>-sweeper-start}), unless it is closed or started by then. A start that fails
   * is logged at ERROR: failed and postponed events then wait for a polling relay.
   */
  void startLater() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      scheduled = true;
    }
    CompletableFuture.delayedExecutor(
            interval.toNanos(),
            TimeUnit.NANOSECONDS,
            r -> {
              threads.newThread("sweeper-start", r).start();
            })
        .execute(this::startScheduled);
  }

  private void startScheduled() {
    synchronized (lock) { // close() takes the same lock: never started once closed
      if (!scheduled || closed) {
        return;
      }
      scheduled = false;
      try {
        polling.start();
      } catch (RuntimeException e) {
        log.error(
            "WAL relay {}: its sweeper could not start; failed and postponed events wait for a"
                + " polling relay: {}",
            polling.config().name(),
            WalRelay.safe(e.getMessage()),
            e);
      }
    }
  }

  /** Starts the polling relay now, instead of at its scheduled time if there is one. */
  @Override
  public void start() {
    synchronized (lock) {
      scheduled = false;
      polling.start();
    }
  }

  @Override
  public void wakeUp() {
    polling.wakeUp();
  }

  /** Whether it runs, or its start is scheduled ({@link #startLater()}), and it is not closed. */
  @Override
  public boolean isRunning() {
    synchronized (lock) {
      if (scheduled && !closed) {
        return true;
      }
    }
    return polling.isRunning();
  }

  @Override
  public RelayConfig config() {
    return polling.config();
  }

  @Override
  public String schema() {
    return polling.schema();
  }

  @Override
  public OutboxAdmin admin() {
    return polling.admin();
  }

  @Override
  public int runOnce() throws InterruptedException {
    return polling.runOnce();
  }

  @Override
  public DrainResult drain() throws InterruptedException {
    return polling.drain();
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    polling.awaitTermination();
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return polling.awaitTermination(timeout);
  }

  @Override
  public OutboxRelay closeOnShutdown() {
    polling.closeOnShutdown();
    return this;
  }

  @Override
  public void close() {
    close(polling.config().shutdownTimeout());
  }

  @Override
  public void close(Duration timeout) {
    synchronized (lock) {
      closed = true;
      scheduled = false;
    }
    polling.close(timeout);
  }
}
