package dev.txoutbox.guice;

import com.google.inject.Inject;
import com.google.inject.Singleton;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.internal.relay.RelayThreads;
import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts and stops every outbox of an application at once: each {@link OutboxModule}'s relay (all
 * of them, whatever their binding annotations; {@link OutboxModule.Builder#writerOnly()} modules
 * have none) and the publishers those relays use.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(billingModule, shippingModule, ...);
 * OutboxLifecycle outboxes = injector.getInstance(OutboxLifecycle.class).closeOnShutdown();
 * outboxes.start(BrokerCheckPolicy.FAIL_FAST, Duration.ofSeconds(10));
 * }</pre>
 *
 * <p>{@link #start(BrokerCheckPolicy, Duration)} first asks each publisher, once, whether its
 * broker answers ({@link Publisher#checkBroker(Duration)}), then starts every relay. With {@link
 * BrokerCheckPolicy#FAIL_FAST} an unreachable or refusing broker fails the start and no relay
 * starts; with {@link BrokerCheckPolicy#REPORT} the relays start anyway (they wait out a broker
 * outage without costing any event an attempt) and {@link #isReady()} says false until a later
 * {@link #checkBrokers(Duration)} finds every broker again, for a readiness probe.
 *
 * <p>{@link #close()} closes every relay first (concurrently, each within its {@link
 * dev.txoutbox.RelayConfig#shutdownTimeout()}, so the in-flight batches finish and nothing is
 * claimed any more), then every publisher, each once even when several relays share it. A plain
 * Java application makes the same object with {@link #builder()}.
 *
 * <p>This class is thread-safe.
 */
@Singleton
public final class OutboxLifecycle implements AutoCloseable {

  /** What {@link #start(BrokerCheckPolicy, Duration)} does about the brokers before it starts. */
  public enum BrokerCheckPolicy {
    /** Checks no broker: starts the relays at once. */
    NONE,
    /** Checks every broker, logs a WARN for each one that failed, and starts the relays anyway. */
    REPORT,
    /** Checks every broker and, if one failed, starts nothing and throws. */
    FAIL_FAST
  }

  private static final Logger log = LoggerFactory.getLogger(OutboxLifecycle.class);

  /** Its shutdown hook and the threads that close the relays at once. */
  private static final RelayThreads THREADS = RelayThreads.of("lifecycle");

  private final List<ManagedOutbox> outboxes;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicBoolean hookRegistered = new AtomicBoolean();
  private volatile Map<String, BrokerCheck> lastChecks = Map.of();
  private final Thread shutdownHook;

  @Inject
  OutboxLifecycle(Set<ManagedOutbox> outboxes) {
    this(List.copyOf(outboxes));
  }

  private OutboxLifecycle(List<ManagedOutbox> outboxes) {
    this.outboxes = outboxes;
    this.shutdownHook = THREADS.shutdownHook(this::close);
  }

  /** Starts listing, for a plain-Java application, the outboxes a lifecycle runs. */
  public static Builder builder() {
    return new Builder();
  }

  /** The names of the outboxes this lifecycle runs, in start order. */
  public List<String> outboxNames() {
    List<String> names = new ArrayList<>();
    outboxes.forEach(o -> names.add(o.name()));
    return Collections.unmodifiableList(names);
  }

  /**
   * Starts every relay without checking any broker: {@code start(BrokerCheckPolicy.NONE, ...)}.
   *
   * @throws IllegalStateException if this lifecycle was closed
   */
  public void start() {
    requireOpen();
    startRelays();
  }

  /**
   * Checks the brokers as {@code policy} says, then starts every relay. Does nothing if already
   * started. If a relay fails to start, the relays already started are closed and the exception is
   * rethrown.
   *
   * @param policy whether to check the brokers, and whether a failed check stops the start
   * @param timeout how long each broker check may take (the checks run one after another)
   * @return the verdict for each outbox's broker, by outbox name (empty with {@code NONE})
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws IllegalStateException if this lifecycle was closed, or with {@code FAIL_FAST} if a
   *     broker check failed (the message names the outboxes and what their checks found; nothing
   *     was started)
   * @throws InterruptedException if interrupted during a broker check; nothing was started
   */
  public Map<String, BrokerCheck> start(BrokerCheckPolicy policy, Duration timeout)
      throws InterruptedException {
    Objects.requireNonNull(policy, "policy");
    BrokerCheck.requirePositive(timeout);
    requireOpen();
    Map<String, BrokerCheck> checks =
        policy == BrokerCheckPolicy.NONE ? Map.of() : checkBrokers(timeout);
    List<String> failed = failures(checks);
    if (!failed.isEmpty()) {
      switch (policy) {
        case FAIL_FAST ->
            throw new IllegalStateException(
                "OutboxLifecycle started no relay: a broker check failed for "
                    + String.join("; ", failed));
        case REPORT ->
            failed.forEach(
                f -> log.warn("Starting the relays although a broker check failed for {}", f));
        case NONE -> {}
      }
    }
    startRelays();
    return checks;
  }

  private void startRelays() {
    if (!started.compareAndSet(false, true)) {
      return;
    }
    List<OutboxRelay> running = new ArrayList<>();
    try {
      for (ManagedOutbox outbox : outboxes) {
        OutboxRelay relay = outbox.relay();
        relay.start();
        running.add(relay);
      }
    } catch (RuntimeException e) {
      for (OutboxRelay relay : running) {
        try {
          relay.close();
        } catch (RuntimeException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
    log.info("Started {} outbox relay(s): {}", outboxes.size(), outboxNames());
  }

  /**
   * Asks each distinct publisher once whether its broker answers ({@link
   * Publisher#checkBroker(Duration)}), and remembers the verdicts for {@link #isReady()}. Safe to
   * call at any time, such as from a readiness probe.
   *
   * @return the verdict for each outbox's broker, by outbox name, in start order
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws InterruptedException if interrupted while waiting for a broker
   */
  public Map<String, BrokerCheck> checkBrokers(Duration timeout) throws InterruptedException {
    BrokerCheck.requirePositive(timeout);
    Map<Publisher, BrokerCheck> byPublisher = new IdentityHashMap<>();
    Map<String, BrokerCheck> checks = new LinkedHashMap<>();
    for (ManagedOutbox outbox : outboxes) {
      Publisher publisher = outbox.publisher();
      BrokerCheck check = byPublisher.get(publisher);
      if (check == null) {
        check = check(publisher, timeout);
        byPublisher.put(publisher, check);
      }
      checks.put(outbox.name(), check);
    }
    Map<String, BrokerCheck> result = Collections.unmodifiableMap(checks);
    lastChecks = result;
    return result;
  }

  private static BrokerCheck check(Publisher publisher, Duration timeout)
      throws InterruptedException {
    try {
      return publisher.checkBroker(timeout);
    } catch (RuntimeException e) {
      // The contract says checkBroker never throws for a broker problem; a plugin that does is
      // reported as unreachable rather than breaking the start.
      return BrokerCheck.unreachable(
          publisher.name() + ": the broker check threw " + e.getClass().getName(), e);
    }
  }

  private static List<String> failures(Map<String, BrokerCheck> checks) {
    List<String> failed = new ArrayList<>();
    checks.forEach(
        (name, check) -> {
          if (check.failed()) {
            failed.add(name + ": " + check.detail());
          }
        });
    return failed;
  }

  /**
   * Whether every relay runs and the last broker checks (at {@link #start(BrokerCheckPolicy,
   * Duration) start} or by {@link #checkBrokers(Duration)}) found no broker unreachable. False
   * before the start and after {@link #close()}.
   */
  public boolean isReady() {
    if (!started.get() || closed.get()) {
      return false;
    }
    for (ManagedOutbox outbox : outboxes) {
      if (!outbox.relay().isRunning()) {
        return false;
      }
    }
    return failures(lastChecks).isEmpty();
  }

  /**
   * Registers a JVM shutdown hook ({@code outbox-lifecycle-shutdown}) that {@link #close() closes}
   * this lifecycle when the JVM is asked to stop (SIGTERM, SIGINT, {@code System.exit}): the relays
   * finish their in-flight batches, then the publishers flush and close. Calling {@link #close()}
   * yourself removes the hook. Idempotent.
   *
   * @return this lifecycle
   * @throws IllegalStateException if this lifecycle was closed
   */
  public OutboxLifecycle closeOnShutdown() {
    requireOpen();
    if (hookRegistered.compareAndSet(false, true)) {
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
    return this;
  }

  /**
   * Closes every relay (concurrently; each within its configured shutdown timeout), then every
   * publisher once. Closes everything even if one step fails: the first exception is rethrown with
   * the others suppressed. Idempotent; restores the interrupt flag if interrupted while waiting.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (hookRegistered.get() && Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook runs, and finds this lifecycle closed
      }
    }
    AtomicReference<@Nullable RuntimeException> first = new AtomicReference<>();
    closeRelays(first);
    Map<Publisher, Boolean> closedPublishers = new IdentityHashMap<>();
    for (ManagedOutbox outbox : outboxes) {
      try {
        Publisher publisher = outbox.publisher();
        if (closedPublishers.put(publisher, Boolean.TRUE) == null) {
          publisher.close();
        }
      } catch (RuntimeException e) {
        keep(first, e);
      }
    }
    log.info("Closed {} outbox relay(s) and their publishers: {}", outboxes.size(), outboxNames());
    RuntimeException failure = first.get();
    if (failure != null) {
      throw failure;
    }
  }

  private void closeRelays(AtomicReference<@Nullable RuntimeException> first) {
    List<Thread> closing = new ArrayList<>();
    for (ManagedOutbox outbox : outboxes) {
      Thread thread =
          THREADS.newThread(
              "close-" + closing.size(),
              () -> {
                try {
                  outbox.relay().close();
                } catch (RuntimeException e) {
                  keep(first, e);
                }
              });
      thread.start();
      closing.add(thread);
    }
    boolean interrupted = false;
    for (Thread thread : closing) {
      while (true) {
        try {
          thread.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // keep waiting: the publishers must not close under a running relay
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static void keep(AtomicReference<@Nullable RuntimeException> first, RuntimeException e) {
    if (!first.compareAndSet(null, e)) {
      RuntimeException kept = first.get();
      if (kept != null) {
        synchronized (kept) {
          kept.addSuppressed(e);
        }
      }
    }
  }

  private void requireOpen() {
    if (closed.get()) {
      throw new IllegalStateException("OutboxLifecycle must be open but was closed");
    }
  }

  /** Lists the outboxes of an {@link OutboxLifecycle} made without Guice. Not thread-safe. */
  public static final class Builder {
    private final Map<String, ManagedOutbox> outboxes = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Adds an outbox: its relay and the publisher that relay was built with.
     *
     * @param name the outbox's name in messages and in the broker check verdicts
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank or was already added
     */
    public Builder outbox(String name, OutboxRelay relay, Publisher publisher) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(relay, "relay");
      Objects.requireNonNull(publisher, "publisher");
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank but was '" + name + "'");
      }
      if (outboxes.containsKey(name)) {
        throw new IllegalArgumentException(
            "name must be unique but '" + name + "' was already added");
      }
      outboxes.put(name, new ManagedOutbox(name, () -> relay, () -> publisher));
      return this;
    }

    /** The lifecycle, not yet started. */
    public OutboxLifecycle build() {
      return new OutboxLifecycle(List.copyOf(outboxes.values()));
    }
  }
}
