package dev.txoutbox.console;

import dev.txoutbox.OutboxStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples each outbox for the overview's charts every {@link #interval()} while the console runs:
 * one {@code OutboxAdmin.status()} per outbox (the overview's own query), keeping pending and the
 * published rate (events processed in the last minute / 60, so a one-minute average, and 0 when
 * relays delete events as they publish them). Started at the console's first request, on one daemon
 * thread {@code txoutbox-console-sampler}; stopped by {@link #close()}. A failed sample is logged
 * once and skipped. Thread-safe.
 */
final class Sampler implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Sampler.class);

  /** What the charts cover: one hour. */
  static final Duration SPAN = Duration.ofHours(1);

  private final Collection<ConsoleOutbox> outboxes;
  private final Duration interval;
  private final Clock clock;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile @Nullable ScheduledExecutorService thread;
  private volatile boolean failing;

  Sampler(Collection<ConsoleOutbox> outboxes, Duration interval, Clock clock) {
    this.outboxes = outboxes;
    this.interval = interval;
    this.clock = clock;
  }

  /** Points each outbox keeps: one hour of samples. */
  static int capacity(Duration interval) {
    return (int) Math.max(1, SPAN.toMillis() / interval.toMillis());
  }

  Duration interval() {
    return interval;
  }

  /** Starts sampling unless started or closed; the first sample at once. */
  void startOnce() {
    if (closed.get() || !started.compareAndSet(false, true)) {
      return;
    }
    ScheduledExecutorService t =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread th = new Thread(r, "txoutbox-console-sampler");
              th.setDaemon(true);
              return th;
            });
    thread = t;
    t.scheduleWithFixedDelay(this::sampleAll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    if (closed.get()) {
      t.shutdownNow();
    }
  }

  /** One sample of every outbox; the scheduled task. */
  void sampleAll() {
    for (ConsoleOutbox outbox : outboxes) {
      try {
        OutboxStatus status = outbox.status();
        outbox
            .samples()
            .add(
                new Samples.Point(
                    clock.millis(), status.pending(), status.processedLastMinute() / 60.0));
        failing = false;
      } catch (RuntimeException e) {
        if (!failing) {
          failing = true;
          log.warn(
              "sampling outbox {} for the charts failed; skipped until it works: {}",
              outbox.name(),
              Text.masked(e.getMessage()));
        }
      }
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      ScheduledExecutorService t = thread;
      if (t != null) {
        t.shutdownNow();
      }
    }
  }
}
