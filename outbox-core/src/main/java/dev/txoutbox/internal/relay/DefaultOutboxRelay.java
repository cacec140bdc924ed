package dev.txoutbox.internal.relay;

import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.Publisher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay's lifecycle and worker loops; one cycle is {@link RelayCycle}. */
public final class DefaultOutboxRelay implements OutboxRelay {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /** After a failed cycle the wait starts here and doubles up to {@link #MAX_ERROR_DELAY}. */
  static final Duration MIN_ERROR_DELAY = Duration.ofMillis(100);

  static final Duration MAX_ERROR_DELAY = Duration.ofSeconds(10);

  private enum State {
    NEW,
    RUNNING,
    CLOSED
  }

  private final RelayConfig config;
  private final String publisherDescription;
  private final RelayCycle cycle;
  private final RelayListener listener;
  private final WakeUpSignal signal = new WakeUpSignal();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean stopping;

  private final NotificationListener notifications;

  /**
   * @param listenDataSource where to LISTEN for the opt-in trigger's notifications, or null
   * @param channel the NOTIFY channel, when {@code listenDataSource} is given
   */
  public DefaultOutboxRelay(
      DSLContext dsl,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      List<RelayListener> listeners,
      DataSource listenDataSource,
      String channel) {
    this.config = config;
    this.notifications =
        listenDataSource == null
            ? null
            : new NotificationListener(listenDataSource, channel, this::wakeUp, config.name());
    this.publisherDescription = describe(publisher);
    this.listener = new SafeListener(listeners);
    this.cycle = new RelayCycle(dsl, publisher, config, clock, listener);
  }

  @Override
  public void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException(
          "relay " + config.name() + " is " + state.get() + ", not NEW");
    }
    log.info(
        "outbox relay {} starting: {}; publisher {}", config.name(), config, publisherDescription);
    synchronized (workers) {
      for (int i = 1; i <= config.workers(); i++) {
        Thread t = new Thread(this::loop, "outbox-relay-" + config.name() + "-worker-" + i);
        // Daemon: a JVM exiting without close() must not hang on us. An unfinished batch is
        // rolled back by the database when the connection drops, so nothing is lost.
        t.setDaemon(true);
        workers.add(t);
        t.start();
      }
    }
    if (notifications != null) {
      notifications.start();
    }
  }

  @Override
  public void wakeUp() {
    signal.signal();
  }

  @Override
  public boolean isRunning() {
    return state.get() == State.RUNNING && !stopping;
  }

  @Override
  public RelayConfig config() {
    return config;
  }

  @Override
  public int runOnce() throws InterruptedException {
    return cycle.run();
  }

  private void loop() {
    Duration idle = config.minPollInterval();
    Duration errorDelay = MIN_ERROR_DELAY;
    long seen = signal.generation();
    while (!stopping) {
      try {
        int claimed = cycle.run();
        errorDelay = MIN_ERROR_DELAY;
        if (claimed >= config.batchSize()) {
          idle = config.minPollInterval();
          continue;
        }
        idle =
            claimed > 0
                ? config.minPollInterval()
                : min(idle.multipliedBy(2), config.maxPollInterval());
        seen = signal.await(idle, seen);
      } catch (InterruptedException e) {
        if (stopping) {
          break;
        }
        Thread.interrupted(); // clear it, or every following wait would end at once
        log.warn("relay {} worker interrupted while running; carrying on", config.name());
      } catch (Throwable e) {
        if (e instanceof VirtualMachineError) {
          throw (VirtualMachineError) e;
        }
        listener.cycleFailed(e);
        log.warn(
            "relay {} cycle failed, retrying in {} ms: {}",
            config.name(),
            errorDelay.toMillis(),
            e.toString(),
            e);
        try {
          seen = signal.await(errorDelay, seen);
        } catch (InterruptedException stop) {
          if (stopping) {
            break;
          }
        }
        errorDelay = min(errorDelay.multipliedBy(2), MAX_ERROR_DELAY);
      }
    }
    log.debug("relay {} worker {} stopped", config.name(), Thread.currentThread().getName());
  }

  @Override
  public void close() {
    close(config.shutdownTimeout());
  }

  @Override
  public void close(Duration timeout) {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    stopping = true;
    if (notifications != null) {
      notifications.close();
    }
    signal.signal();
    List<Thread> threads;
    synchronized (workers) {
      threads = List.copyOf(workers);
    }
    boolean interrupted = false;
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (Thread t : threads) {
        long left = deadline - System.nanoTime();
        if (left > 0) {
          t.join(Math.max(1, left / 1_000_000));
        }
      }
    } catch (InterruptedException e) {
      interrupted = true;
    }
    List<Thread> stuck = threads.stream().filter(Thread::isAlive).toList();
    if (!stuck.isEmpty()) {
      log.warn(
          "relay {}: {} worker(s) still publishing after {}; interrupting, their batches roll back",
          config.name(),
          stuck.size(),
          timeout);
      stuck.forEach(Thread::interrupt);
      try {
        for (Thread t : stuck) {
          t.join(5_000);
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
      long alive = stuck.stream().filter(Thread::isAlive).count();
      if (alive > 0) {
        log.error(
            "relay {}: {} worker(s) ignore interruption (a publisher that does not honour it);"
                + " leaving them behind: their transactions roll back when their connections close",
            config.name(),
            alive);
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    log.info("outbox relay {} closed", config.name());
  }

  private static String describe(Publisher publisher) {
    try {
      return publisher.describe();
    } catch (RuntimeException e) {
      return publisher.name() + " (describe() failed: " + e + ")";
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
