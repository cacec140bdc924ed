package dev.txoutbox.fleet.internal;

import dev.txoutbox.fleet.Assignment;
import dev.txoutbox.fleet.ControlLossPolicy;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.OutboxKind;
import dev.txoutbox.spi.SecretMasking;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's loop, on one thread ({@code txoutbox-fleet-<node>-coordinator}): every renew interval
 * (or scan interval, if shorter) it heartbeats and renews the leases it holds (one transaction);
 * every scan interval, and at once when told of a registry change ({@link #scanSoon()}, called by
 * the {@link ChangeListener}), it reads the registry and the leases, starts, restarts or stops
 * runners, takes free or expired outboxes and hands back one if it holds more than its share
 * ({@link Balancer}). It never waits for a relay: runners start and stop on their own threads, so a
 * slow tenant cannot delay a renewal.
 *
 * <p>Like River's elector, it trusts a renewal only until {@code start of the attempt + TTL -
 * margin} on its own monotonic clock; past that without a successful renewal it applies the {@link
 * ControlLossPolicy}. The database alone decides expiry and takeover.
 *
 * <p>Thread-safe.
 */
public final class Coordinator {

  private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

  /** Time for a runner to close its publisher and pool after its relay's shutdown timeout. */
  private static final Duration CLOSE_MARGIN = Duration.ofSeconds(5);

  private final String node;
  private final LeaseStore store;
  private final RunnerSettings runnerSettings;
  private final String outboxColumns;
  private final LeaseStore.RowReader<FleetOutbox> reader;
  private final Duration ttl;
  private final Duration renewInterval;
  private final Duration scanInterval;
  private final ControlLossPolicy policy;
  private final Duration shutdownTimeout;
  private final ScheduledThreadPoolExecutor thread;

  private final Map<String, OutboxRunner> runners = new ConcurrentHashMap<>();
  private final Map<String, Long> releasing = new ConcurrentHashMap<>();
  private final AtomicBoolean scanQueued = new AtomicBoolean();

  // Written by the coordinator's thread only; read by renewing().
  private volatile long trustedUntil;
  private volatile boolean running;

  // Owned by the coordinator's thread.
  private long nextScan;

  public Coordinator(
      LeaseStore store,
      RunnerSettings runnerSettings,
      String outboxColumns,
      LeaseStore.RowReader<FleetOutbox> reader,
      Duration ttl,
      Duration renewInterval,
      Duration scanInterval,
      ControlLossPolicy policy,
      Duration shutdownTimeout) {
    this.node = runnerSettings.node();
    this.store = store;
    this.runnerSettings = runnerSettings;
    this.outboxColumns = outboxColumns;
    this.reader = reader;
    this.ttl = ttl;
    this.renewInterval = renewInterval;
    this.scanInterval = scanInterval;
    this.policy = policy;
    this.shutdownTimeout = shutdownTimeout;
    this.thread =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "txoutbox-fleet-" + node + "-coordinator");
              t.setDaemon(true);
              return t;
            });
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    thread.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
  }

  /** Starts the loop; the first tick registers the node and scans at once. */
  public void start() {
    trustedUntil = System.nanoTime() + margin(ttl);
    running = true;
    nextScan = System.nanoTime();
    long period = Math.min(renewInterval.toMillis(), scanInterval.toMillis());
    thread.scheduleWithFixedDelay(this::tick, 0, period, TimeUnit.MILLISECONDS);
  }

  /**
   * Runs a tick that scans the registry now, on the coordinator's thread; calls made while one is
   * queued share it. Does nothing once closed.
   */
  public void scanSoon() {
    if (!scanQueued.compareAndSet(false, true)) {
      return;
    }
    try {
      thread.execute(
          () -> {
            scanQueued.set(false);
            nextScan = System.nanoTime();
            tick();
          });
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** The outboxes held now, by name. */
  public List<Assignment> assignments() {
    List<Assignment> out = new ArrayList<>();
    runners.values().forEach(r -> out.add(r.assignment()));
    out.sort(Comparator.comparing(Assignment::outbox));
    return out;
  }

  /**
   * Whether the loop runs and its last renewal is still trusted: false before {@link #start()},
   * after {@link #close()}, and once renewals have failed for a TTL less the margin (when the
   * {@link ControlLossPolicy} applies).
   */
  public boolean renewing() {
    return running && System.nanoTime() - trustedUntil <= 0;
  }

  private long margin(Duration d) {
    // trust a renewal for TTL less a quarter of it (at most 1 s less)
    long ttlNanos = d.toNanos();
    return ttlNanos - Math.min(ttlNanos / 4, Duration.ofSeconds(1).toNanos());
  }

  private void tick() {
    long attempt = System.nanoTime();
    try {
      Map<String, Long> held = new HashMap<>(releasing);
      runners.forEach((name, r) -> held.put(name, r.term()));
      Map<String, Long> renewed = store.heartbeat(node, held);
      trustedUntil = attempt + margin(ttl);
      for (Map.Entry<String, OutboxRunner> e : List.copyOf(runners.entrySet())) {
        Long term = renewed.get(e.getKey());
        if (term == null || term != e.getValue().term()) {
          log.warn(
              "fleet node {} no longer holds the lease of outbox {} (term {}: taken over, or the"
                  + " outbox was removed): stopping its relay",
              node,
              e.getKey(),
              e.getValue().term());
          runners.remove(e.getKey());
          e.getValue().stop();
        }
      }
      if (attempt - nextScan >= 0) {
        scan();
        nextScan = System.nanoTime() + scanInterval.toNanos();
      }
    } catch (Exception | LinkageError e) {
      log.warn(
          "fleet node {} cannot reach the control database: {}",
          node,
          SecretMasking.maskText(String.valueOf(e.getMessage())));
      if (System.nanoTime() - trustedUntil > 0) {
        loseControl();
      }
    }
  }

  private void loseControl() {
    for (Map.Entry<String, OutboxRunner> e : List.copyOf(runners.entrySet())) {
      if (policy == ControlLossPolicy.STOP_ALL || e.getValue().outbox().kind() == OutboxKind.WAL) {
        log.warn(
            "fleet node {} could not renew the lease of outbox {} within its TTL: stopping its relay",
            node,
            e.getKey());
        runners.remove(e.getKey());
        e.getValue().stop();
      }
    }
  }

  private void scan() throws Exception {
    Snapshot snapshot = store.snapshot(outboxColumns, reader);
    Set<String> present = new HashSet<>();
    for (Snapshot.Row row : snapshot.rows()) {
      present.add(row.name());
      OutboxRunner runner = runners.get(row.name());
      FleetOutbox o = row.outbox();
      if (runner == null) {
        continue;
      }
      if (o == null || !o.enabled()) {
        log.info(
            "outbox {} is {}: releasing it",
            row.name(),
            o == null ? "invalid (" + row.invalid() + ")" : "disabled");
        release(row.name());
      } else if (o.version() != runner.outbox().version()) {
        runner.update(o);
      }
    }
    for (String name : List.copyOf(runners.keySet())) {
      if (!present.contains(name)) {
        log.info("outbox {} was removed from the registry: stopping its relay", name);
        OutboxRunner r = runners.remove(name);
        if (r != null) {
          r.stop();
        }
      }
    }
    Balancer.Plan plan = Balancer.plan(node, runners.keySet(), snapshot);
    for (FleetOutbox o : plan.take()) {
      OptionalLong term = store.acquire(node, o.name());
      if (term.isPresent()) {
        log.info("fleet node {} took outbox {} (term {})", node, o.name(), term.getAsLong());
        runners.put(o.name(), new OutboxRunner(runnerSettings, o, term.getAsLong()));
      }
    }
    if (releasing.isEmpty()) {
      plan.release()
          .ifPresent(
              name -> {
                log.info("fleet node {} hands outbox {} back to balance the fleet", node, name);
                release(name);
              });
    }
  }

  /** Stops the runner, then frees its lease: the next owner starts only after this one stopped. */
  private CompletableFuture<Void> release(String name) {
    OutboxRunner r = runners.remove(name);
    if (r == null) {
      return CompletableFuture.completedFuture(null);
    }
    releasing.put(name, r.term());
    return r.stop()
        .whenComplete(
            (ok, error) -> {
              try {
                store.release(node, name, r.term());
              } catch (Exception e) {
                log.warn(
                    "fleet node {} cannot release outbox {}; it frees itself when the lease"
                        + " expires: {}",
                    node,
                    name,
                    SecretMasking.maskText(String.valueOf(e.getMessage())));
              } finally {
                releasing.remove(name);
              }
            });
  }

  /**
   * Stops the loop, stops every relay (each within the shutdown timeout), frees their leases and
   * leaves the membership: a clean handover. What cannot be written (control database down) frees
   * itself when the leases expire.
   */
  public void close() {
    running = false;
    thread.shutdown();
    try {
      if (!thread.awaitTermination(shutdownTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    List<CompletableFuture<Void>> stops = new ArrayList<>();
    for (String name : List.copyOf(runners.keySet())) {
      stops.add(release(name));
    }
    try {
      CompletableFuture.allOf(stops.toArray(new CompletableFuture<?>[0]))
          .get(shutdownTimeout.toMillis() + CLOSE_MARGIN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      log.warn("fleet node {}: not every relay stopped within {}", node, shutdownTimeout);
    }
    try {
      store.leave(node);
    } catch (Exception e) {
      log.warn(
          "fleet node {} cannot leave the membership; it expires on its own: {}",
          node,
          SecretMasking.maskText(String.valueOf(e.getMessage())));
    }
  }
}
