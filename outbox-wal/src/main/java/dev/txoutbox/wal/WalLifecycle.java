package dev.txoutbox.wal;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.SecretMasking;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.postgresql.replication.LogSequenceNumber;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's lifecycle: {@link WalRelay#start()}'s checks (creating the publication and the
 * slot), the events pending at the slot's creation published before the stream, the wait for a
 * database that cannot be reached at start, the relay's thread, and {@link WalRelay#close} and
 * {@link WalRelay#abort}, which stop it with its heartbeat, its sweeper and its meters. The relay's
 * settings and parts are its relay's; whether it runs is this class's. Thread-safe.
 */
final class WalLifecycle {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  private final WalRelay relay;
  private final DSLContext dsl;
  private final RelayConfig config;
  private final OutboxTables tables;
  private final String slotName;
  private final String publicationName;
  private final boolean createIfMissing;
  private final RelayKernel kernel;
  private final WalBatchStep batchStep;
  private final WalStreamReader streamReader;
  private final @Nullable WalSweeper sweeper;
  private final Duration reconnectDelay;
  private final Backoff reconnectBackoff;
  private final AtomicLong confirmedLsn;
  private final AtomicLong skippedCount;
  private final AtomicLong reconnects;

  private final AtomicBoolean started = new AtomicBoolean();
  private final Object lifecycle = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean running;
  private volatile @Nullable Thread reader;

  WalLifecycle(WalRelay relay) {
    this.relay = relay;
    this.dsl = relay.dsl;
    this.config = relay.config;
    this.tables = relay.tables;
    this.slotName = relay.slotName;
    this.publicationName = relay.publicationName;
    this.createIfMissing = relay.createIfMissing;
    this.kernel = relay.kernel;
    this.batchStep = relay.batchStep;
    this.streamReader = relay.streamReader;
    this.sweeper = relay.sweeper;
    this.reconnectDelay = relay.reconnectDelay;
    this.reconnectBackoff = relay.reconnectBackoff;
    this.confirmedLsn = relay.confirmedLsn;
    this.skippedCount = relay.skippedCount;
    this.reconnects = relay.reconnects;
  }

  /** Whether the relay is running: false once closed. */
  boolean running() {
    return running;
  }

  /** Whether the relay runs and its thread lives ({@link WalRelay#isRunning()}). */
  boolean isRunning() {
    Thread t = reader;
    return running && t != null && t.isAlive();
  }

  /** {@link WalRelay#start()}. */
  void start() {
    if (closed.get()) {
      throw new IllegalStateException("relay " + config.name() + " was closed; build a new one");
    }
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("relay " + config.name() + " was already started");
    }
    try {
      RuntimeException down = null;
      try {
        if (check()) {
          drainBacklog();
        }
      } catch (RuntimeException e) {
        if (!unreachable(e)) {
          throw e;
        }
        down = e; // the thread waits for the database, as the polling relay waits out an outage
      }
      // close() takes the same lock: a close during the checks either comes first, and then
      // nothing starts, or after the thread exists, and then it stops it.
      synchronized (lifecycle) {
        if (closed.get()) {
          throw new IllegalStateException("relay " + config.name() + " was closed while starting");
        }
        startReading(down);
      }
    } catch (RuntimeException | Error e) {
      if (!running) {
        started.set(false); // nothing started: once the cause is fixed, start() may be called again
      }
      throw e;
    }
  }

  /**
   * The checks of {@link #start()}, which create the publication and slot if they may.
   *
   * @return whether the slot was created now
   */
  private boolean check() {
    try {
      dsl.selectOne().from(dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS).limit(0).fetch();
    } catch (org.jooq.exception.DataAccessException e) {
      if (unreachable(e)) {
        throw e;
      }
      throw new IllegalStateException(
          "cannot start: table "
              + tables.schema()
              + "."
              + tables.eventsTable()
              + " is not readable ("
              + e.getMessage()
              + "). Create it with OutboxSchema.migrate(dataSource, tables)",
          e);
    }
    // As the polling relay: without the ordering indexes each batch's check of earlier events
    // would scan the table.
    RelayKernel.requireOrderingIndexes(dsl, config.ordering(), tables);
    WalSetup.ensurePublication(dsl, publicationName, tables, createIfMissing);
    return WalSetup.ensureSlot(dsl, slotName, createIfMissing);
  }

  /**
   * Publishes the events that were pending when the slot was created (committed before it, or
   * since), in {@code seq} order, page by page, before the stream is read: the stream starts at the
   * slot's creation, so a later event of an aggregate would otherwise reach the broker before its
   * earlier ones, which the polling relay would publish meanwhile. Each page is one batch as the
   * stream's are (claim, publish, record); events of later pages that the stream also carries are
   * then skipped as recorded. Stops, leaving the rest to the polling relay with a WARN, at a page
   * the broker is unavailable to, or that cannot be read or recorded, or once closed.
   */
  private void drainBacklog() {
    long upTo = WalStore.lastSeq(dsl);
    long after = Long.MIN_VALUE;
    int published = 0;
    String stopped = null;
    while (!closed.get()) {
      try {
        List<OutboxMessage> page = WalStore.backlog(dsl, after, upTo, config.batchSize());
        if (page.isEmpty()) {
          break;
        }
        stopped = batchStep.process(page, Map.of(), true);
        if (stopped != null) {
          stopped = "the broker is unavailable: " + stopped;
          break;
        }
        published += page.size();
        after = page.get(page.size() - 1).sequence();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (RuntimeException e) {
        stopped = e.getMessage();
        break;
      }
    }
    if (stopped != null) {
      log.warn(
          "WAL relay {}: the events pending when slot {} was created are left to the polling"
              + " relay from seq {} on, so they may reach the broker after later events of their"
              + " aggregates: {}",
          config.name(),
          slotName,
          after == Long.MIN_VALUE ? "1" : after + 1,
          WalRelay.safe(stopped));
    } else if (published > 0) {
      log.info(
          "WAL relay {}: {} event(s) pending when slot {} was created published in seq order"
              + " before the stream",
          config.name(),
          published,
          slotName);
    }
  }

  /**
   * Whether {@code e} says that the database cannot be reached now (a connection refused or lost,
   * SQLSTATE class 08; a server starting up or shutting down, 57P), which waiting cures, rather
   * than a problem of the setup.
   */
  static boolean unreachable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.ConnectException) {
        return true;
      }
      if (t instanceof SQLException sql
          && sql.getSQLState() != null
          && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Waits for the database that could not be reached at start: runs the checks of {@link #start()}
   * again after the reconnect delay, doubling up to 30 s, until they pass or the relay is closed.
   * One WARN when the wait starts and one INFO when the database is reached; a check that fails
   * otherwise once the database answers (a table missing) is logged at ERROR, once per message, and
   * tried again.
   *
   * @return whether the checks passed; false once the relay is closed
   */
  private boolean awaitDatabase(RuntimeException down) {
    long since = System.nanoTime();
    log.warn(
        "WAL relay {}: the database cannot be reached; waiting for it, checking again after {}"
            + " doubling up to {}: {}",
        config.name(),
        DurationText.of(reconnectDelay),
        DurationText.of(WalRelay.MAX_RECONNECT_DELAY),
        WalRelay.safe(down.getMessage()));
    String said = null;
    for (int tries = 1; running; tries++) {
      LockSupport.parkNanos(
          this, reconnectBackoff.delayAfter(tries, ThreadLocalRandom.current()).toNanos()); // close
      if (!running) {
        break;
      }
      try {
        boolean created = check();
        log.info(
            "WAL relay {}: database reached after {} ({} checks); reading slot {}",
            config.name(),
            DurationText.of(Duration.ofNanos(System.nanoTime() - since)),
            tries,
            slotName);
        if (created) {
          drainBacklog();
        }
        return true;
      } catch (RuntimeException e) {
        if (!unreachable(e) && !Objects.equals(said, e.getMessage())) {
          said = e.getMessage();
          log.error(
              "WAL relay {}: the database answers but the relay cannot start yet; checking again:"
                  + " {}",
              config.name(),
              WalRelay.safe(said));
        }
      }
    }
    return false;
  }

  private void startReading(@Nullable RuntimeException down) {
    log.info(
        "starting WAL relay {}: slot={}, publication={}, tables={}, batchSize={},"
            + " minBatchInterval={}, concurrentBatches={},"
            + " maxAttempts={}, completionMode={}, ordering={}, publisher={}, metrics={}, url={}",
        config.name(),
        slotName,
        publicationName,
        tables,
        config.batchSize(),
        DurationText.of(Duration.ofNanos(relay.minBatchNanos)),
        relay.concurrentBatches,
        config.maxAttempts(),
        config.completionMode(),
        config.ordering(),
        relay.publisherDescription(),
        relay.metricsText,
        SecretMasking.maskUri(relay.replicationUrl));
    running = true;
    // The relay's row for the console, written every few seconds by a thread of its own.
    kernel.startHeartbeat(
        dsl, tables, config + "; slot " + slotName + "; publisher " + relay.publisherDescription());
    kernel.startVacuum(dsl); // RelayConfig.vacuumInterval(), as the polling relay's
    Thread t =
        relay.threads.newThread(
            "reader",
            () -> {
              if (down == null || awaitDatabase(down)) {
                if (sweeper != null) {
                  sweeper.startLater();
                }
                streamReader.run();
              }
            });
    t.setDaemon(true);
    reader = t;
    t.start();
  }

  /** {@link WalRelay#close(Duration)}. */
  void close(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    Thread t;
    synchronized (lifecycle) {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
      running = false;
      t = reader;
    }
    if (t != null) {
      LockSupport.unpark(t);
      streamReader.batchThreads().forEach(LockSupport::unpark); // ends a hold at once
      try {
        t.join(Math.max(1, timeout.toMillis()));
        if (t.isAlive()) {
          t.interrupt();
          streamReader.closeReplication();
          t.join(Math.max(1, timeout.toMillis()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    streamReader.closeReplication();
    kernel.stopHeartbeat();
    kernel.stopVacuum();
    if (sweeper != null) {
      try {
        sweeper.close(timeout);
      } catch (RuntimeException e) {
        log.warn("WAL relay {}: closing its sweeper failed: {}", config.name(), e.toString(), e);
      }
    }
    relay.closeMeters.run();
    log.info(
        "WAL relay {} stopped at confirmed position {}; {} events skipped, {} reconnects",
        config.name(),
        LogSequenceNumber.valueOf(confirmedLsn.get()),
        skippedCount.get(),
        reconnects.get());
  }

  /** {@link WalRelay#abort()}. */
  void abort() {
    synchronized (lifecycle) { // as close()
      running = false;
      closed.set(true);
    }
    streamReader.closeReplication();
    streamReader.batchThreads().forEach(Thread::interrupt);
    Thread t = reader;
    if (t != null) {
      t.interrupt();
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // The relay's other threads end too, as in a crash: its heartbeat, its vacuum, its sweeper, its
    // meters.
    kernel.stopHeartbeat();
    kernel.stopVacuum();
    if (sweeper != null) {
      sweeper.close(Duration.ZERO);
    }
    relay.closeMeters.run();
  }
}
