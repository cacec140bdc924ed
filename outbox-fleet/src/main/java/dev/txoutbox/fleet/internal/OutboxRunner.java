package dev.txoutbox.fleet.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.fleet.Assignment;
import dev.txoutbox.fleet.FleetOutbox;
import dev.txoutbox.fleet.OutboxKind;
import dev.txoutbox.fleet.SecretRef;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalRelayBuilder;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the relay of one outbox a node holds, on a thread of its own ({@code
 * txoutbox-fleet-<node>.<outbox>}), with its own pool and publisher, so that a dead database, a
 * hanging connect or a failing publisher of one outbox never delays another's. A failed start is
 * logged, backed off (doubling) and tried again until the runner is stopped. A WAL outbox starts
 * only once its replication slot is inactive: the slot is the lock, and the previous reader's
 * walsender can linger until {@code wal_sender_timeout}.
 *
 * <p>Thread-safe: every change runs on the runner's thread.
 */
public final class OutboxRunner {

  private static final Logger log = LoggerFactory.getLogger(OutboxRunner.class);
  private static final Duration SLOT_RECHECK = Duration.ofSeconds(1);

  private final RunnerSettings settings;
  private final String relayName;
  private final ScheduledThreadPoolExecutor thread;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  private volatile FleetOutbox outbox;
  private final long term;
  private volatile Assignment.State state = Assignment.State.STARTING;
  private volatile @Nullable String lastError;

  // Owned by the runner's thread.
  private boolean stopping;
  private Duration backoff;
  private @Nullable HikariDataSource pool;
  private @Nullable Publisher publisher;
  private @Nullable OutboxRelay relay;
  private @Nullable WalRelay wal;

  public OutboxRunner(RunnerSettings settings, FleetOutbox outbox, long term) {
    this.settings = settings;
    this.outbox = outbox;
    this.term = term;
    this.relayName = settings.node() + "." + outbox.name();
    this.backoff = settings.minBackoff();
    this.thread =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "txoutbox-fleet-" + relayName);
              t.setDaemon(true);
              return t;
            });
    thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    thread.execute(this::attempt);
  }

  /** The entry this runner serves. */
  public FleetOutbox outbox() {
    return outbox;
  }

  /** The lease term it serves under. */
  public long term() {
    return term;
  }

  /** What it is doing now. */
  public Assignment assignment() {
    return new Assignment(outbox.name(), term, state, lastError);
  }

  /** Whether its relay was started, for tests and probes. */
  public boolean running() {
    return state == Assignment.State.RUNNING;
  }

  /** Restarts the relay with {@code next}, a changed version of the same entry. */
  public void update(FleetOutbox next) {
    outbox = next;
    thread.execute(
        () -> {
          if (stopping) {
            return;
          }
          log.info(
              "outbox {} changed (version {}): restarting its relay", next.name(), next.version());
          closeResources();
          backoff = settings.minBackoff();
          attempt();
        });
  }

  /**
   * Stops the relay, then closes its publisher and pool, on the runner's thread.
   *
   * @return completed once everything is closed
   */
  public CompletableFuture<Void> stop() {
    state = Assignment.State.STOPPING;
    try {
      thread.execute(
          () -> {
            stopping = true;
            closeResources();
            stopped.complete(null);
          });
      thread.shutdown();
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // already stopping: the first stop completes the future
    }
    return stopped;
  }

  private void attempt() {
    if (stopping) {
      return;
    }
    FleetOutbox o = outbox;
    try {
      if (pool == null) {
        pool = pool(o);
      }
      if (publisher == null) {
        publisher =
            settings.publishers().create(o, resolvedSettings(o), "txoutbox-fleet-" + relayName);
      }
      RelayConfig config = settings.relayConfig().toBuilder().name(relayName).build();
      if (o.kind() == OutboxKind.POLLING) {
        OutboxRelay.Builder b =
            OutboxRelay.builder()
                .dataSource(pool)
                .tables(o.tables())
                .publisher(publisher)
                .config(config);
        if (settings.meterRegistry() != null) {
          b.metrics((MeterRegistry) settings.meterRegistry());
        }
        relay = b.build();
        relay.start();
      } else if (!startWal(o, config)) {
        return;
      }
      state = Assignment.State.RUNNING;
      lastError = null;
      backoff = settings.minBackoff();
      log.info("fleet node {} serves outbox {} (term {})", settings.node(), o.name(), term);
    } catch (Exception | LinkageError e) {
      String reason = SecretMasking.maskText(e.getClass().getSimpleName() + ": " + e.getMessage());
      lastError = reason;
      state = Assignment.State.BACKING_OFF;
      log.warn(
          "fleet node {} cannot start the relay of outbox {}, trying again in {}: {}",
          settings.node(),
          o.name(),
          backoff,
          reason);
      closeResources();
      schedule(backoff);
      Duration doubled = backoff.multipliedBy(2);
      backoff = doubled.compareTo(settings.maxBackoff()) > 0 ? settings.maxBackoff() : doubled;
    }
  }

  /**
   * @return whether it started; false if the slot is still in use (checked again soon)
   */
  private boolean startWal(FleetOutbox o, RelayConfig config) throws Exception {
    HikariDataSource ds = java.util.Objects.requireNonNull(pool);
    Publisher pub = java.util.Objects.requireNonNull(publisher);
    Properties props = new Properties();
    if (o.user() != null) {
      props.setProperty("user", o.user());
    }
    if (o.password() != null) {
      props.setProperty("password", o.password().resolve(settings.environment()));
    }
    WalRelayBuilder b =
        WalRelay.builder()
            .dataSource(ds)
            .replicationUrl(o.jdbcUrl(), props)
            .publisher(pub)
            .tables(o.tables())
            .config(config);
    if (o.slotName() != null) {
      b.slotName(o.slotName());
    }
    // The WAL relay builds, starts and closes its own polling sweeper, named <relay>-sweeper.
    b.sweepInterval(settings.walSweepInterval());
    if (settings.meterRegistry() != null) {
      b.metrics((MeterRegistry) settings.meterRegistry());
    }
    WalRelay built = b.build();
    if (slotActive(ds, built.slotName())) {
      state = Assignment.State.WAITING_FOR_SLOT;
      log.info("outbox {}: slot {} is still active, waiting for it", o.name(), built.slotName());
      schedule(SLOT_RECHECK);
      return false;
    }
    wal = built;
    built.start();
    return true;
  }

  private static boolean slotActive(HikariDataSource ds, String slot) throws Exception {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private void schedule(Duration delay) {
    try {
      thread.schedule(this::attempt, delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // stopped meanwhile
    }
  }

  private HikariDataSource pool(FleetOutbox o) {
    HikariConfig c = new HikariConfig();
    c.setPoolName("txoutbox-fleet-" + relayName);
    c.setJdbcUrl(o.jdbcUrl());
    if (o.user() != null) {
      c.setUsername(o.user());
    }
    if (o.password() != null) {
      c.setPassword(o.password().resolve(settings.environment()));
    }
    c.setMaximumPoolSize(settings.poolSize());
    c.setMinimumIdle(0);
    c.setConnectionTimeout(5_000);
    c.setValidationTimeout(2_000);
    c.setInitializationFailTimeout(-1); // a dead database must not fail the start: the relay waits
    return new HikariDataSource(c);
  }

  private Map<String, String> resolvedSettings(FleetOutbox o) {
    Map<String, String> out = new TreeMap<>();
    o.publisherSettings()
        .forEach(
            (k, v) ->
                out.put(
                    k,
                    SecretRef.isReference(v)
                        ? SecretRef.parse("publisher setting " + k, v)
                            .resolve(settings.environment())
                        : v));
    return out;
  }

  private void closeResources() {
    WalRelay w = wal;
    OutboxRelay r = relay;
    Publisher p = publisher;
    HikariDataSource ds = pool;
    wal = null;
    relay = null;
    publisher = null;
    pool = null;
    if (r != null) {
      quietly(r::close, "relay");
    }
    if (w != null) {
      quietly(w::close, "WAL relay");
    }
    if (p != null) {
      quietly(p::close, "publisher");
    }
    if (ds != null) {
      quietly(ds::close, "pool");
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private void quietly(Step step, String what) {
    try {
      step.run();
    } catch (Exception | LinkageError e) {
      log.warn(
          "outbox {}: closing its {} failed: {}",
          outbox.name(),
          what,
          SecretMasking.maskText(String.valueOf(e.getMessage())));
    }
  }
}
