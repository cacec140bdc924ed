package dev.txoutbox.internal.relay;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.Backoff;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.heartbeat.RelayHeartbeat;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The relay's lifecycle and worker loops; one cycle is {@link RelayCycle}. */
public final class DefaultOutboxRelay implements OutboxRelay {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /** The wait after consecutive failed cycles: 100 ms doubling to 10 s, with jitter. */
  static final Backoff ERROR_BACKOFF =
      Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(10));

  private enum State {
    NEW,
    RUNNING,
    CLOSED
  }

  private final RelayConfig config;
  private final OutboxTables tables;
  private final OutboxAdmin admin;
  private final String metrics;
  private final Runnable closeWithRelay;
  private final String publisherDescription;
  private final RelayCycle cycle;
  private final BrokerCircuit circuit;
  private final PublishStep step;
  private final DSLContext dsl;
  private final RelayListener listener;
  private final WakeUpSignal signal = new WakeUpSignal();
  private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean stopping;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private final AtomicReference<@Nullable Thread> shutdownHook = new AtomicReference<>();

  private final @Nullable NotificationListener notifications;

  /** Makes the workers, the heartbeat's thread and the shutdown hook. */
  private final RelayThreads threads;

  /** The relay's row in the heartbeat table while it runs (the console reads it); else null. */
  private volatile @Nullable RelayHeartbeat heartbeat;

  /** The events table's VACUUM every {@code vacuumInterval} while it runs; else null. */
  private volatile @Nullable TableVacuum vacuum;

  /** The idle wait: from {@code minPollInterval} doubling to {@code maxPollInterval}, exactly. */
  private final Backoff idleBackoff;

  public DefaultOutboxRelay(RelayParts parts) {
    this.config = parts.config();
    this.tables = parts.tables();
    this.admin = parts.admin();
    this.metrics = parts.metrics();
    this.closeWithRelay = parts.closeWithRelay();
    this.notifications =
        parts.listenDataSource() == null
            ? null
            : new NotificationListener(
                parts.listenDataSource(), tables.notifyChannel(), this::wakeUp, parts.threads());
    this.threads = parts.threads();
    this.publisherDescription = describe(parts.publisher());
    this.listener = new SafeListener(parts.listeners());
    this.step =
        PublishStep.polling(parts.publisher(), config, parts.clock(), listener, parts.tracer());
    this.cycle = new RelayCycle(parts.dsl(), step, config, parts.clock());
    this.circuit =
        new BrokerCircuit(config.name(), config.brokerProbeBackoff(), listener, System::nanoTime);
    this.dsl = parts.dsl();
    this.idleBackoff = new Backoff(config.minPollInterval(), config.maxPollInterval(), 2.0, 0.0);
  }

  @Override
  public void start() {
    if (!state.compareAndSet(State.NEW, State.RUNNING)) {
      throw new IllegalStateException(
          "relay " + config.name() + " must be NEW to start but was " + state.get());
    }
    try {
      RelayStore.requireTables(dsl, tables);
      RelayStore.requireOrderingIndexes(dsl, config.ordering(), tables);
    } catch (IllegalStateException missing) {
      state.set(State.NEW);
      throw new IllegalStateException(
          "relay " + config.name() + " " + missing.getMessage(), missing);
    }
    // The one lifecycle line with the whole configuration; plugins log none of their own.
    log.info(
        "outbox relay {} starting on schema {}: {}; publisher {}; metrics {}; notifications {}",
        config.name(),
        tables,
        config,
        publisherDescription,
        metrics,
        notifications == null ? "off" : "on channel " + tables.notifyChannel());
    // Heartbeat: the relay's row for the console, written by a thread of its own.
    heartbeat =
        RelayHeartbeat.start(
            dsl,
            tables,
            config.name(),
            RelayHeartbeat.Kind.POLLING,
            config + "; publisher " + publisherDescription,
            threads);
    Duration vacuumInterval = config.vacuumInterval();
    if (vacuumInterval != null) {
      TableVacuum v =
          new TableVacuum(dsl, dsl.render(OUTBOX_EVENTS), config.name(), vacuumInterval, threads);
      vacuum = v;
      v.start();
    }
    synchronized (workers) {
      for (int i = 1; i <= config.workers(); i++) {
        // A daemon unless the user's factory says otherwise: a JVM exiting without close() must
        // not hang on us. An unfinished batch is rolled back when the connection drops.
        Thread t = threads.newThread("worker-" + i, this::loop);
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
  public String schema() {
    return tables.schema();
  }

  @Override
  public OutboxAdmin admin() {
    return admin;
  }

  @Override
  public int runOnce() throws InterruptedException {
    return runCycle(config.batchSize()).claimed();
  }

  @Override
  public DrainResult drain() throws InterruptedException {
    if (state.get() == State.RUNNING) {
      throw new IllegalStateException(
          "relay "
              + config.name()
              + " must not be running to drain() (its workers publish concurrently) but was"
              + " RUNNING; drain a relay that was never started, or close it first");
    }
    List<UUID> published = new ArrayList<>();
    int retried = 0;
    int deadLettered = 0;
    int unavailable = 0;
    int cycles = 0;
    int emptyFull = 0;
    while (true) {
      RelayCycle.Result r = runCycle(config.batchSize());
      cycles++;
      published.addAll(r.publishedIds());
      retried += r.retried();
      deadLettered += r.deadLettered();
      unavailable += r.unavailable();
      if (r.claimed() == 0) {
        // A full claim of nothing passed over blocked aggregates only: the next goes on from there.
        if (!r.full() || ++emptyFull >= DrainResult.MAX_EMPTY_FULL_CYCLES) {
          break;
        }
        continue;
      }
      emptyFull = 0;
      if (r.publishedIds().isEmpty() && r.retried() == 0 && r.deadLettered() == 0) {
        break; // no progress: the broker was unavailable, the events stay as they were
      }
    }
    return DrainResult.of(published, retried, deadLettered, unavailable, cycles);
  }

  @Override
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout");
    return terminated.await(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
  }

  @Override
  public OutboxRelay closeOnShutdown() {
    if (state.get() == State.CLOSED) {
      throw new IllegalStateException(
          "relay " + config.name() + " must not be CLOSED to closeOnShutdown() but was CLOSED");
    }
    Thread hook = threads.shutdownHook(this::close);
    if (shutdownHook.compareAndSet(null, hook)) {
      // Throws IllegalStateException itself when the JVM is already shutting down.
      Runtime.getRuntime().addShutdownHook(hook);
      if (state.get() == State.CLOSED) {
        // close() ran between the check above and the registration, and found no hook to remove.
        removeShutdownHook();
      }
    }
    return this;
  }

  private void loop() {
    BackoffSteps idle = new BackoffSteps(idleBackoff, ThreadLocalRandom.current());
    BackoffSteps errors = new BackoffSteps(ERROR_BACKOFF, ThreadLocalRandom.current());
    long seen = signal.generation();
    while (!stopping) {
      try {
        BrokerCircuit.Permit permit = circuit.permit();
        if (permit instanceof BrokerCircuit.Wait w) {
          seen = signal.await(w.duration(), seen);
          continue;
        }
        boolean probe = permit instanceof BrokerCircuit.Probe;
        RelayCycle.Result result;
        try {
          result = runCycle(probe ? BrokerCircuit.PROBE_BATCH_SIZE : config.batchSize());
        } finally {
          if (probe) {
            circuit.probed();
          }
        }
        errors.reset();
        step.runSucceeded();
        if (!circuit.isClosed()) {
          continue; // the next permit says how long to wait
        }
        if (result.claimed() > 0 || result.full()) {
          idle.reset();
          if (result.full() && result.claimed() > 0) {
            continue;
          }
        }
        // A full claim of nothing passed over blocked aggregates only: the next one goes on from
        // there, soon, but not in a busy loop.
        seen = signal.await(idle.next(), seen);
      } catch (InterruptedException e) {
        if (stopsOnInterrupt()) {
          break;
        }
      } catch (Throwable e) {
        if (e instanceof VirtualMachineError fatal) {
          throw fatal;
        }
        Duration delay = errors.next();
        step.runFailed(e, delay, "cycle");
        try {
          seen = signal.await(delay, seen);
        } catch (InterruptedException interrupted) {
          if (stopsOnInterrupt()) {
            break;
          }
        }
      }
    }
    log.debug("relay {} worker {} stopped", config.name(), Thread.currentThread().getName());
  }

  /**
   * The workers' interruption policy, which the loop may set as the owner of their threads: an
   * interrupt while closing stops the worker (its thread ends, so the flag does not matter); any
   * other is logged and dropped, and the loop carries on. It is not restored: every later wait
   * would throw at once, turning the worker into a busy loop.
   */
  private boolean stopsOnInterrupt() {
    if (stopping) {
      return true;
    }
    log.warn(
        "relay {} worker {} interrupted while running; carrying on",
        config.name(),
        Thread.currentThread().getName());
    return false;
  }

  /** One cycle, its news of the broker reported to the circuit. */
  private RelayCycle.Result runCycle(int limit) throws InterruptedException {
    long started = circuit.now();
    RelayCycle.Result result = cycle.run(limit);
    circuit.report(result.unavailableReason(), result.answered(), started);
    RelayHeartbeat beat = heartbeat; // Heartbeat: a volatile write, written by its own thread
    if (beat != null) {
      beat.cycleCompleted();
    }
    return result;
  }

  @Override
  public void close() {
    close(config.shutdownTimeout());
  }

  @Override
  public void close(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    try {
      stopWorkers(timeout);
    } finally {
      // Whatever failed above, the relay is closed: waiters return and the hook goes.
      removeShutdownHook();
      RelayHeartbeat beat = heartbeat; // Heartbeat: stamps stopped_at, waits 2 s at most
      if (beat != null) {
        beat.close();
      }
      TableVacuum v = vacuum;
      if (v != null) {
        v.close();
      }
      terminated.countDown();
    }
    log.info("outbox relay {} closed", config.name());
  }

  /** Stops and joins the workers, then closes what was made with the relay. */
  private void stopWorkers(Duration timeout) {
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
    try {
      closeWithRelay.run();
    } catch (RuntimeException e) {
      log.warn("relay {}: closing its meters failed", config.name(), e);
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Unregisters the hook of {@link #closeOnShutdown()}, unless the hook is what is closing us. */
  private void removeShutdownHook() {
    Thread hook = shutdownHook.get();
    if (hook == null || hook == Thread.currentThread()) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // The JVM is exiting: the hook runs and finds the relay closed (close is idempotent).
    }
  }

  /**
   * The publisher's {@link Publisher#describe()} as it may be logged, {@linkplain RelayCycle#safe
   * safe}: masked again (the contract forbids secrets in it; this catches a plugin that forgot) and
   * with control characters escaped.
   */
  static String describe(Publisher publisher) {
    String text;
    try {
      text = publisher.describe();
    } catch (RuntimeException e) {
      text = publisher.name() + " (describe() failed: " + e + ")";
    }
    return RelayCycle.safe(text);
  }
}
