package dev.txoutbox.wal;

import dev.txoutbox.Backoff;
import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.relay.PublishStep;
import dev.txoutbox.internal.relay.RelayStore;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.SecretMasking;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay that reads the outbox table's inserts from a logical replication slot ({@code pgoutput})
 * instead of polling, and publishes them through the same {@link Publisher} in commit order.
 *
 * <h2>What it does</h2>
 *
 * One thread reads the stream and collects the events of committed transactions (up to the batch
 * size, or whatever arrived until a Commit after which the connection holds nothing more unread);
 * another processes each batch while the reader collects the next, in one database transaction:
 * claims those of the batch that are still pending (one {@code UPDATE … RETURNING} on their ids
 * that marks them processed, or a {@code SELECT … FOR UPDATE} in {@code CompletionMode.DELETE}; a
 * row the polling relay holds is waited for, so events it published, dead-lettered or postponed are
 * never published again and those it rolled back are), publishes them, records each outcome exactly
 * as the polling relay does (published rows stay marked or are deleted; failures clear the mark and
 * get {@code attempts}, {@code retry_after}, {@code last_error} or a dead-letter time;
 * broker-unavailable events are postponed without an attempt) and commits. Only then does it
 * confirm the slot's flushed position. A crash before the confirmation replays the batch:
 * duplicates, never loss.
 *
 * <p>When the broker is unavailable to every event of a batch, the relay rolls the batch back,
 * confirms nothing and publishes the same batch again after each delay of the broker probe backoff,
 * holding the slot (and keeping the stream alive) until the broker answers or the relay is closed.
 * In the per-aggregate {@linkplain RelayConfig#ordering() orderings} it publishes no event of an
 * aggregate that has a pending event outside the batch before its last event in the batch (before
 * its first one, or in a gap between two), and leaves those rows untouched.
 *
 * <p>While nothing is pending it confirms the server's keepalive position, so that a quiet outbox
 * table on a busy database does not hold back the slot (PostgreSQL 15 and later send no empty
 * transactions). A stream that fails is reopened, the delay doubling per failure in a row.
 *
 * <p>Failed, postponed and delayed events ({@code notBefore}) are left to the polling {@code
 * OutboxRelay} the WAL relay builds, starts and closes as its sweeper ({@link #sweeper()}), polling
 * every {@link Builder#sweepInterval sweep interval}: it retries and dead-letters them and sweeps
 * anything the slot missed (a slot dropped or lost and created anew).
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class WalRelay implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  /** Defaults to this delay before reconnecting after the stream failed: 1 s. */
  public static final Duration DEFAULT_RECONNECT_DELAY = Duration.ofSeconds(1);

  /**
   * The longest wait between two attempts to reopen a stream that keeps failing: 30 s. The wait
   * starts at the reconnect delay and doubles per failure in a row; a stream that confirmed a
   * position, or lived this long, starts a new series.
   */
  static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(30);

  /**
   * Defaults to this longest wait for a commit the stream delivered to become visible: 5 s. See
   * {@link Builder#visibilityWait(Duration)}.
   */
  static final Duration DEFAULT_VISIBILITY_WAIT = Duration.ofSeconds(5);

  /**
   * Defaults to this shortest time between two batches that are not full: 1 ms. See {@link
   * Builder#minBatchInterval(Duration)}.
   */
  public static final Duration DEFAULT_MIN_BATCH_INTERVAL = Duration.ofMillis(1);

  /**
   * The longest {@link Builder#minBatchInterval(Duration)}: 1 s. Past it the interval would delay
   * events rather than gather them; {@code notBefore} is the way to delay an event.
   */
  public static final Duration MAX_MIN_BATCH_INTERVAL = Duration.ofSeconds(1);

  /** Defaults to this interval between two polls of the sweeper: 30 s. */
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(30);

  /** The most batches {@link Builder#concurrentBatches} lets out at a time. */
  public static final int MAX_CONCURRENT_BATCHES = 8;

  /** The first and the longest pause between two looks for rows not visible yet. */
  private static final Duration FIRST_LOOK = Duration.ofMillis(1);

  private static final Duration LONGEST_LOOK = Duration.ofMillis(100);

  /** The pauses between two looks: from {@link #FIRST_LOOK} doubling to {@link #LONGEST_LOOK}. */
  private static final Backoff LOOKS = new Backoff(FIRST_LOOK, LONGEST_LOOK, 2.0, 0.0);

  /** Defaults to this interval between two status updates to the server: 10 s. */
  static final Duration DEFAULT_STATUS_INTERVAL = Duration.ofSeconds(10);

  /** {@link #oldestUnconfirmed} when every commit read is confirmed. */
  private static final long NO_COMMIT = Long.MIN_VALUE;

  /** The longest the claim waits for a row another relay holds before it claims again. */
  private static final Duration MAX_LOCK_WAIT = Duration.ofSeconds(5);

  /** PostgreSQL's epoch, of the commit times in the stream. */
  private static final Instant PG_EPOCH = Instant.parse("2000-01-01T00:00:00Z");

  /**
   * How long the reader sleeps when the stream has nothing and no batch is pending, unless the
   * driver's look for more already waited: pgjdbc's {@code readPending()} reads the socket with a 1
   * ms timeout when nothing is buffered, and wakes as soon as data comes.
   */
  private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** A {@code readPending()} that returned nothing faster than this did not wait for data. */
  private static final long WAITED_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private static final Pattern SLOT_NAME = Pattern.compile("[a-z0-9_]{1,63}");

  private final DataSource dataSource;
  private final DSLContext dsl;
  private final WalStatements statements;
  private final String replicationUrl;
  private final Properties replicationProperties;
  private final Publisher publisher;
  private final OutboxTables tables;
  private final RelayConfig config;
  private final String slotName;
  private final String publicationName;
  private final boolean createIfMissing;
  private final PublishStep step;
  private final RelayListener listener;
  private final Clock clock;
  private final Duration reconnectDelay;
  private final Backoff reconnectBackoff;
  private final Duration statusInterval;
  private final Duration visibilityWait;
  private final long minBatchNanos;
  private final int concurrentBatches;
  private final String metricsText;
  private final Runnable closeMeters;
  private final @Nullable OutboxRelay sweeper;

  private final AtomicBoolean started = new AtomicBoolean();
  private final Object lifecycle = new Object();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean running;
  private volatile @Nullable Thread reader;
  private volatile @Nullable Connection replication;
  private final AtomicLong confirmedLsn = new AtomicLong();
  private final AtomicLong skippedCount = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong visibilityWaits = new AtomicLong();
  private final AtomicLong skippedTransactions = new AtomicLong();

  /** The stream's failures in a row inside one transaction. The reader thread's only. */
  private final StuckTransaction stuck = new StuckTransaction();

  /**
   * The Begin of the transaction being read when reading or decoding the stream failed last, or
   * null when the stream failed elsewhere (a batch, the connection). The reader thread's only.
   */
  private PgOutput.@Nullable Begin failedIn;

  /** Whether the INFO line that the socket cannot be asked ({@link ServerBytes}) was written. */
  private boolean slowBatchEndSaid; // the reader thread's only

  /**
   * In the per-aggregate orderings, the aggregates whose events the relay leaves to the polling
   * relay because a transaction the stream delivered is still not visible on the last look, by that
   * transaction's {@code xid}: their later events must not overtake the invisible ones, which no
   * statement can see. Dropped once the transaction no longer runs (visible, so the check of {@link
   * WalStore#blocked} sees its rows). The batch thread's only (one at a time: a stream's thread has
   * ended before the next stream's starts); an entry is added at most once per visibility wait.
   */
  private final Map<Integer, Set<WalStore.Aggregate>> heldBack = new HashMap<>();

  /**
   * The commit time of the oldest transaction of the batch being processed, or {@link #NO_COMMIT}
   * when none is: older than any in {@link #readOldest}.
   */
  private volatile long processingOldest = NO_COMMIT;

  /**
   * The commit time of the oldest transaction read into the batch the reader collects, or {@link
   * #NO_COMMIT}.
   */
  private volatile long readOldest = NO_COMMIT;

  /** The threads processing the current stream's batches ({@link Batches}), for close to wake. */
  private final Set<Thread> batchThreads = ConcurrentHashMap.newKeySet();

  private final Outage outage = new Outage();

  private WalRelay(Builder b) {
    this.dataSource = Objects.requireNonNull(b.dataSource, "dataSource");
    this.replicationUrl = Objects.requireNonNull(b.replicationUrl, "replicationUrl");
    this.publisher = Objects.requireNonNull(b.publisher, "publisher");
    this.tables = b.tables;
    this.config = b.config;
    this.slotName = b.slotName != null ? b.slotName : defaultName(b.tables);
    this.publicationName = b.publicationName != null ? b.publicationName : defaultName(b.tables);
    this.createIfMissing = b.createIfMissing;
    this.clock = b.clock;
    this.reconnectDelay = b.reconnectDelay;
    this.reconnectBackoff = reconnectBackoff(b.reconnectDelay);
    this.statusInterval = b.statusInterval;
    this.visibilityWait = b.visibilityWait;
    this.minBatchNanos = b.minBatchInterval.toNanos();
    this.concurrentBatches = b.concurrentBatches;
    Properties p = new Properties();
    p.putAll(b.replicationProperties);
    PGProperty.REPLICATION.set(p, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
    PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    this.replicationProperties = p;
    this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(new Settings()));
    this.statements =
        new WalStatements(dsl, config.ordering(), lockTimeout(), config.completionMode());
    OutboxMetrics metrics = b.metrics;
    RelayListener meterListener = null;
    if (metrics == null) {
      this.metricsText = "off";
      this.closeMeters = () -> {};
    } else {
      // Only here is Micrometer loaded: a relay without metrics runs without it. As the polling
      // relay's, the meters' refresh starts when they are registered, at build().
      OutboxAdmin admin =
          OutboxAdmin.builder().dataSource(dataSource).tables(tables).clock(clock).build();
      WalMeters meters = WalMeters.register(metrics, config.name(), this, admin);
      meters.start(config.name());
      meterListener = meters.listener();
      this.metricsText = metrics.toString();
      this.closeMeters = meters::close;
    }
    this.step =
        PublishStep.wal(
            "dev.txoutbox.wal",
            publisher,
            config,
            clock,
            meterListener,
            b.listeners,
            reconnectBackoff);
    this.listener = step.listener();
    this.sweeper = b.sweeper ? buildSweeper(b) : null;
  }

  /**
   * The polling relay behind this one, from its own tables, publisher, listeners, clock and metrics
   * settings: its configuration is this relay's, named {@code <name>-sweeper}, polling every sweep
   * interval and no more often; in the same ordering, so that it keeps the order of an aggregate
   * this relay leaves to it.
   */
  private OutboxRelay buildSweeper(Builder b) {
    RelayConfig sweeps =
        config.toBuilder()
            .name(config.name() + "-sweeper")
            .minPollInterval(b.sweepInterval)
            .maxPollInterval(b.sweepInterval)
            .build();
    OutboxRelay.Builder polling =
        OutboxRelay.builder()
            .dataSource(dataSource)
            .tables(tables)
            .publisher(publisher)
            .clock(clock)
            .config(sweeps);
    b.listeners.forEach(polling::listener);
    if (b.metrics != null) {
      polling.metrics(b.metrics);
    }
    try {
      return polling.build();
    } catch (RuntimeException e) {
      closeMeters.run(); // build() fails as a whole: the WAL meters registered above go too
      throw e;
    }
  }

  /** {@code txoutbox_<prefix><schema>}, the default slot and publication name. */
  static String defaultName(OutboxTables tables) {
    return ("txoutbox_" + tables.tablePrefix() + tables.schema())
        .toLowerCase(java.util.Locale.ROOT);
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The polling relay that retries, dead-letters and sweeps behind this one (see {@link
   * Builder#sweeper(boolean)}), or empty if it was turned off. Started by {@link #start()} once the
   * relay's checks have passed (on the relay's thread, after the events pending at the slot's
   * creation were published), closed by {@link #close()}.
   */
  public Optional<OutboxRelay> sweeper() {
    return Optional.ofNullable(sweeper);
  }

  /** The replication slot this relay reads. */
  public String slotName() {
    return slotName;
  }

  /** The publication this relay subscribes to. */
  public String publicationName() {
    return publicationName;
  }

  /** The last position confirmed to the slot, as a number; 0 before the first confirmation. */
  public long confirmedLsn() {
    return confirmedLsn.get();
  }

  /**
   * Events read from the stream but not published by this relay because they were no longer pending
   * (the polling relay had them) or were inserted with a delay. Counts since start.
   */
  public long skippedEvents() {
    return skippedCount.get();
  }

  /**
   * Bytes of WAL the slot holds back now: from its confirmed position to the server's current one.
   * Grows while the relay is stopped or behind; one query on {@code pg_replication_slots}.
   *
   * @return the lag in bytes, or -1 if the slot does not exist
   */
  public long slotLagBytes() {
    return WalSetup.lagBytes(dsl, slotName);
  }

  /**
   * How far behind the confirmed position is in time: the age, by this relay's clock, of the commit
   * of the oldest transaction that the relay has read from the stream but not yet confirmed to the
   * slot (it is publishing it, or holding it while the broker is unavailable). 0 when every
   * transaction read is confirmed. It does not see transactions the server has not sent yet: while
   * the stream is down, or the relay is stopped, watch {@link #slotLagBytes()}. No query.
   *
   * @return the lag in seconds, 0 when caught up, or NaN while not {@link #isRunning()}: before
   *     {@link #start()}, after {@link #close()} or after a {@link VirtualMachineError}
   */
  public double slotLagSeconds() {
    long oldest = processingOldest;
    if (oldest == NO_COMMIT) {
      oldest = readOldest;
    }
    if (!isRunning()) {
      return Double.NaN;
    }
    if (oldest == NO_COMMIT) {
      return 0;
    }
    long now = ChronoUnit.MICROS.between(PG_EPOCH, clock.instant());
    return Math.max(0, now - oldest) / 1e6;
  }

  /**
   * Whether the relay is reading or trying to: true from {@link #start()} until {@link #close()},
   * while its thread lives: a {@link VirtualMachineError} (out of memory) ends the thread, logged,
   * and then this is false. A stream being reopened after a failure still counts as running; {@link
   * #reconnects()} and the slot lag tell how well it goes.
   */
  public boolean isRunning() {
    Thread t = reader;
    return running && t != null && t.isAlive();
  }

  /** How many times a batch was looked at again because rows of it were not visible yet. */
  long visibilityWaits() {
    return visibilityWaits.get();
  }

  /** How many times the stream was opened again after a failure since start. */
  public long reconnects() {
    return reconnects.get();
  }

  /**
   * How many transactions the relay moved the slot past since start because the stream failed
   * {@value StuckTransaction#SKIP_AFTER} times in a row while reading them (the server could not
   * decode them); their events stay pending for the polling relay. Each is logged at WARN and
   * recorded for {@link WalSlot#skippedTransactions}.
   */
  public long skippedTransactions() {
    return skippedTransactions.get();
  }

  /**
   * Checks or creates the publication and the slot, then starts reading on a thread of its own
   * ({@code outbox-wal-<name>}). If the database cannot be reached (a connection refused, a server
   * starting up), it does not throw: the thread waits for it, checking again after the reconnect
   * delay doubling up to 30 s (one WARN as the wait starts, one INFO once connected), then reads.
   * When it creates the slot, it first publishes the events pending then, in {@code seq} order, so
   * that the stream's later events of an aggregate never overtake them: start the WAL relay before
   * its sweeper.
   *
   * @throws IllegalStateException if called twice or after {@link #close()}; if the table,
   *     publication or slot is missing and cannot be created (the message shows the SQL and the
   *     privileges needed); or, in a per-aggregate ordering, if the ordering indexes are missing
   *     (the message says how to install them: {@code OutboxSchema.migrateOrderingIndex} or {@code
   *     txoutbox migrate --with-ordering-index}). A start that threw started nothing: call it again
   *     once the cause is fixed
   */
  public void start() {
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
    RelayStore.requireOrderingIndexes(dsl, config.ordering(), tables);
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
        stopped = process(page, Map.of(), true);
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
          safe(stopped));
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
        DurationText.of(MAX_RECONNECT_DELAY),
        safe(down.getMessage()));
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
              safe(said));
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
        DurationText.of(Duration.ofNanos(minBatchNanos)),
        concurrentBatches,
        config.maxAttempts(),
        config.completionMode(),
        config.ordering(),
        publisher.describe(),
        metricsText,
        SecretMasking.maskUri(replicationUrl));
    running = true;
    Thread t =
        new Thread(
            () -> {
              if (down == null || awaitDatabase(down)) {
                startSweeper();
                run();
              }
            },
            "outbox-wal-" + config.name());
    t.setDaemon(true);
    reader = t;
    t.start();
  }

  /** Starts the sweeper, after the relay's checks (and its backlog) and unless closed. */
  private void startSweeper() {
    if (sweeper == null) {
      return;
    }
    synchronized (lifecycle) { // close() closes it under the same lock: never started once closed
      if (closed.get()) {
        return;
      }
      try {
        sweeper.start();
      } catch (RuntimeException e) {
        log.error(
            "WAL relay {}: its sweeper could not start; failed and postponed events wait for a"
                + " polling relay: {}",
            config.name(),
            safe(e.getMessage()),
            e);
      }
    }
  }

  private void run() {
    boolean first = true;
    int failures = 0; // of the series of streams that did not work, for the backoff
    while (running) {
      long confirmedBefore = confirmedLsn.get();
      long openedAt = System.nanoTime();
      failedIn = null;
      Throwable failure;
      try {
        if (!first) {
          reconnects.incrementAndGet();
          if (WalSetup.ensureSlot(dsl, slotName, createIfMissing)) {
            log.warn(
                "WAL relay {}: slot {} was missing and is created anew; events committed while it"
                    + " was missing are left to the polling relay",
                config.name(),
                slotName);
          }
        }
        first = false;
        stream();
        continue; // returns only once closed
      } catch (VirtualMachineError e) {
        log.error("WAL relay {}: stopping on {}", config.name(), e.toString(), e);
        listener.cycleFailed(e);
        break;
      } catch (Throwable e) { // a loop that must not die: catch everything else, reconnect
        failure = e;
      } finally {
        closeReplication();
      }
      if (!running) {
        break;
      }
      Thread.interrupted(); // an interrupt while running is not a close: it only ends the stream
      boolean worked =
          confirmedLsn.get() != confirmedBefore
              || System.nanoTime() - openedAt >= MAX_RECONNECT_DELAY.toNanos();
      failures = worked ? 1 : failures + 1;
      Duration delay = reconnectBackoff.delayAfter(failures, ThreadLocalRandom.current());
      Throwable e = failure;
      // One WARN as a database outage begins, DEBUG while it lasts, one INFO once a stream
      // opens again: the polling relay's words for its cycles ({@link PublishStep#runFailed}).
      step.runFailed(e, delay, "stream");
      log.debug(
          "WAL relay {}: stream failed ({} in a row), reconnecting after {}",
          config.name(),
          failures,
          DurationText.of(delay));
      PgOutput.Begin in = failedIn;
      if (stuck.failedIn(in) && in != null) {
        skip(in, e);
      }
      LockSupport.parkNanos(this, delay.toNanos()); // close() unparks
    }
  }

  /**
   * Moves the slot past the transaction that {@code in} began, which the stream failed {@link
   * StuckTransaction#SKIP_AFTER} times in a row to read, the last time with {@code error}: its
   * events stay pending, for the polling relay. Says so at WARN, counts it and records it for
   * {@code wal-slot show}; a move that fails is tried again after the next failure.
   */
  private void skip(PgOutput.Begin in, Throwable error) {
    String reason = String.valueOf(error.getMessage());
    WalSkips.Move move;
    try (Connection c = DriverManager.getConnection(replicationUrl, replicationProperties)) {
      move = WalSkips.advance(c, slotName, in, () -> running);
    } catch (SQLException | RuntimeException e) {
      log.warn(
          "WAL relay {}: the stream failed {} times in a row in transaction {}, but moving slot {}"
              + " past it failed; trying again after the next failure: {}",
          config.name(),
          stuck.inARow(),
          Integer.toUnsignedLong(in.xid()),
          slotName,
          safe(e.getMessage()));
      return;
    }
    stuck.reset();
    skippedTransactions.incrementAndGet();
    confirmedLsn.set(move.toLsn());
    log.warn(
        "WAL relay {}: slot {} moved past transaction {} (commit at {}; confirmed position {} to"
            + " {}) after the stream failed {} times in a row reading it; its events stay pending"
            + " for the polling relay, which publishes them or dead-letters those it cannot read"
            + " either. The server's error: {}",
        config.name(),
        slotName,
        move.xid(),
        WalSkips.lsn(move.commitLsn()),
        WalSkips.lsn(move.fromLsn()),
        WalSkips.lsn(move.toLsn()),
        StuckTransaction.SKIP_AFTER,
        safe(reason));
    try {
      WalSkips.record(dsl, tables, slotName, move, reason);
    } catch (RuntimeException e) {
      log.warn(
          "WAL relay {}: the move past transaction {} could not be recorded for wal-slot show: {}",
          config.name(),
          move.xid(),
          safe(e.getMessage()));
    }
  }

  /**
   * The wait before reopening the stream after the {@code failures}-th failure in a row: {@code
   * initial}, doubled each time, at most {@link #MAX_RECONNECT_DELAY} (or {@code initial} if
   * longer).
   */
  static Duration reconnectDelay(Duration initial, int failures) {
    return reconnectBackoff(initial).delayAfter(failures, ThreadLocalRandom.current());
  }

  /** The reconnect waits: {@code initial} doubling up to 30 s (or {@code initial} if longer). */
  private static Backoff reconnectBackoff(Duration initial) {
    Duration max = initial.compareTo(MAX_RECONNECT_DELAY) > 0 ? initial : MAX_RECONNECT_DELAY;
    return new Backoff(initial, max, 2.0, 0.0);
  }

  private void stream() throws SQLException, InterruptedException {
    Connection c = DriverManager.getConnection(replicationUrl, replicationProperties);
    replication = c;
    if (!running) {
      return;
    }
    PGReplicationStream stream =
        c.unwrap(PGConnection.class)
            .getReplicationAPI()
            .replicationStream()
            .logical()
            .withSlotName(slotName)
            .withSlotOption("proto_version", "1")
            .withSlotOption("publication_names", publicationName)
            .withStatusInterval((int) statusInterval.toMillis(), TimeUnit.MILLISECONDS)
            // The driver would move the flushed position to a keepalive's by itself; the relay
            // does it (confirmQuiet), under its own conditions, whatever the driver version.
            .withAutomaticFlush(false)
            .start();
    step.runSucceeded(); // the database answers again, if it did not
    OutboxInserts inserts = new OutboxInserts(tables);
    List<OutboxMessage> batch = new ArrayList<>();
    // In the per-aggregate orderings, the transaction of each event of the batch, by event id.
    Map<UUID, Integer> xids = new HashMap<>();
    long confirm = -1;
    processingOldest = NO_COMMIT;
    readOldest = NO_COMMIT;
    long quietConfirmed = System.nanoTime();
    // A batch is published once it is full, or once a Commit is read, the socket holds nothing
    // more and the previous batch was published at least the minimum batch interval ago (or the
    // stream has nothing once that interval has passed): asking the stream instead waits up to 1
    // ms in the driver (ServerBytes). Where the socket cannot be asked, a transaction that began
    // once the stream had nothing more is published at its Commit; otherwise the batch waits for
    // the stream to say it has nothing.
    // Where a batch ends does not matter to the per-aggregate orderings: an event they leave
    // invisible holds back its aggregate in later batches too (heldBack).
    boolean ordered = config.ordering() != Ordering.NONE;
    ServerBytes server = ServerBytes.of(c);
    if (!server.known() && !slowBatchEndSaid) {
      slowBatchEndSaid = true;
      log.info(
          "WAL relay {}: a batch read while events keep coming ends after the driver's 1 ms wait"
              + " for more: {}",
          config.name(),
          safe(server.unknownWhy()));
    }
    boolean caughtUp = false;
    long flushed = System.nanoTime() - minBatchNanos; // when the last batch was handed over
    try (Batches batches = new Batches(stream)) {
      while (running) {
        batches.confirmIfDone();
        long reading = System.nanoTime();
        ByteBuffer buffer = read(stream, inserts);
        if (buffer == null) {
          if (confirm >= 0
              && batches.room()
              && (batch.isEmpty() || reading - flushed >= minBatchNanos)) {
            batches.submit(batch, xids, confirm);
            if (!batch.isEmpty()) {
              flushed = System.nanoTime();
            }
            batch.clear();
            xids.clear();
            confirm = -1;
          } else if (confirm >= 0) {
            if (System.nanoTime() - reading < WAITED_NANOS) {
              long interval = batches.room() ? minBatchNanos - (reading - flushed) : IDLE_NANOS;
              LockSupport.parkNanos(Math.min(IDLE_NANOS, interval)); // a finished batch unparks
            }
          } else {
            if (!inserts.inTransaction()) {
              caughtUp = true;
              if (batches.idle()
                  && System.nanoTime() - quietConfirmed >= statusInterval.toNanos()) {
                quietConfirmed = System.nanoTime();
                confirmQuiet(stream);
              }
            }
            if (System.nanoTime() - reading < WAITED_NANOS) {
              LockSupport.parkNanos(IDLE_NANOS);
            }
          }
          continue;
        }
        OutboxInserts.Transaction t = decode(buffer, inserts);
        if (t != null) {
          if (confirm < 0) {
            readOldest = t.commitMicros();
          }
          batch.addAll(t.events());
          if (ordered) {
            for (OutboxMessage m : t.events()) {
              xids.put(m.id(), t.xid());
            }
          }
          skippedCount.addAndGet(t.delayed() + t.unreadable().size());
          for (OutboxInserts.Unreadable u : t.unreadable()) {
            log.warn(
                "WAL relay {}: event {} cannot be read from the stream ({}); it is left to the"
                    + " polling relay, which dead-letters a row it cannot read either",
                config.name(),
                u.id() == null ? "(id not in the stream)" : u.id(),
                safe(u.reason()));
          }
          confirm = t.endLsn();
          if (batch.size() >= config.batchSize()
              || (!batch.isEmpty()
                  && batches.room()
                  && (caughtUp || server.none())
                  && System.nanoTime() - flushed >= minBatchNanos)) {
            batches.submit(batch, xids, confirm);
            flushed = System.nanoTime();
            batch.clear();
            xids.clear();
            confirm = -1;
          }
          if (!t.events().isEmpty()) {
            caughtUp = false; // a transaction without outbox events (PostgreSQL 14) changes nothing
          }
        }
      }
      batches.await(); // the batch in progress when the relay was closed
      if (batch.isEmpty() && !inserts.inTransaction() && read(stream, inserts) == null) {
        // A clean stop with every event read recorded, and nothing more from the server (the
        // look lets the driver take in a keepalive already sent): confirm the server's position,
        // past WAL that is not the outbox's (the relay's own marks, other tables), which would
        // otherwise stay held until the next start.
        confirmQuiet(stream);
        stream.forceUpdateStatus();
      }
    }
  }

  /** The stream's next message, or null; notes the transaction being read if it fails. */
  private @Nullable ByteBuffer read(PGReplicationStream stream, OutboxInserts inserts)
      throws SQLException {
    try {
      return stream.readPending();
    } catch (SQLException | RuntimeException e) {
      failedIn = inserts.open();
      throw e;
    }
  }

  /** The transaction {@code buffer} commits, or null; notes the one being read if it fails. */
  private OutboxInserts.@Nullable Transaction decode(ByteBuffer buffer, OutboxInserts inserts) {
    try {
      return inserts.accept(PgOutput.decode(buffer));
    } catch (RuntimeException e) {
      failedIn = inserts.open();
      throw e;
    }
  }

  /**
   * With nothing pending, confirms the server's position from its keepalives if it moved past the
   * confirmed one. Since PostgreSQL 15 {@code pgoutput} sends no empty transaction, so while the
   * outbox table is idle and other tables are busy no commit would ever be confirmed and the slot
   * would hold back all their WAL, until {@code max_slot_wal_keep_size} made it lost.
   *
   * <p>Safe because the caller only asks when the batch is empty (every event read is recorded and
   * its commit confirmed) and no transaction is open between a Begin and its Commit. The stream
   * delivers messages in order, so a keepalive's position ({@link
   * PGReplicationStream#getLastReceiveLSN()}, also the position of the last message read) is past
   * only what was already sent and read: every transaction that committed before it. A transaction
   * committing later has its commit after that position and is sent whole on any stream that starts
   * there, since the server decodes from the slot's restart position, which it keeps independently
   * of the confirmed one to cover transactions still running.
   */
  private void confirmQuiet(PGReplicationStream stream) {
    long server = stream.getLastReceiveLSN().asLong();
    if (Long.compareUnsigned(server, confirmedLsn.get()) <= 0) {
      return;
    }
    LogSequenceNumber position = LogSequenceNumber.valueOf(server);
    stream.setAppliedLSN(position);
    stream.setFlushedLSN(position); // sent by the driver's next status update
    confirmedLsn.set(server);
  }

  /**
   * The batches of one stream. Each is claimed, published and recorded on a thread of its own while
   * the reader decodes the next, so that the database's work on a batch overlaps the reader's on
   * the stream. Up to {@link #concurrentBatches} are out at a time (one in the per-aggregate
   * orderings, so that each batch's claim sees the outcomes of every batch before it); positions
   * are confirmed in commit order, a batch's only once it and every batch before it are recorded.
   * Only the reader touches the stream: while it waits for a batch it tells the server every half
   * status interval that the relay is alive.
   */
  private final class Batches implements AutoCloseable {
    /** A batch handed over: its outcome, and its position and oldest commit time. */
    private record Out(CompletableFuture<Void> done, long lsn, long oldest) {}

    private final PGReplicationStream stream;
    private final Thread reader = Thread.currentThread();
    private final ExecutorService threads;
    private final ArrayDeque<Out> out = new ArrayDeque<>();
    private boolean interrupted; // the reader, while it waited for a batch: a close's last resort

    Batches(PGReplicationStream stream) {
      this.stream = stream;
      this.threads =
          Executors.newFixedThreadPool(
              concurrentBatches,
              r -> {
                Thread t = new Thread(r, "outbox-wal-" + config.name() + "-batches");
                t.setDaemon(true);
                batchThreads.add(t);
                return t;
              });
    }

    /** Whether every batch handed over is recorded and its position confirmed. */
    boolean idle() {
      return out.isEmpty();
    }

    /** Whether a batch handed over now would start at once. */
    boolean room() {
      return out.size() < concurrentBatches;
    }

    /** Confirms the batches out that are finished, in order; throws what one failed with. */
    void confirmIfDone() throws SQLException, InterruptedException {
      while (!out.isEmpty() && out.peekFirst().done().isDone()) {
        confirmFirst();
      }
    }

    /**
     * Hands over {@code events} (copied), whose last commit ends at {@code lsn}, once there is
     * room; with no events, its position is confirmed after those of the batches out.
     */
    void submit(List<OutboxMessage> events, Map<UUID, Integer> xids, long lsn)
        throws SQLException, InterruptedException {
      while (!room()) {
        awaitFirst();
      }
      long oldest = readOldest;
      readOldest = NO_COMMIT;
      if (events.isEmpty()) {
        out.addLast(new Out(CompletableFuture.completedFuture(null), lsn, oldest));
        confirmIfDone();
        return;
      }
      List<OutboxMessage> batch = List.copyOf(events);
      Map<UUID, Integer> batchXids = Map.copyOf(xids);
      CompletableFuture<Void> done = new CompletableFuture<>();
      threads.execute(
          () -> {
            try {
              for (int from = 0; from < batch.size(); from += config.batchSize()) {
                int to = Math.min(batch.size(), from + config.batchSize());
                processHolding(batch.subList(from, to), batchXids);
              }
              done.complete(null);
            } catch (Throwable e) { // thrown on by the reader
              done.completeExceptionally(e);
            } finally {
              LockSupport.unpark(reader); // after the completion, which the reader looks at
            }
          });
      if (out.isEmpty()) {
        processingOldest = oldest;
      }
      out.addLast(new Out(done, lsn, oldest));
    }

    /** Waits for every batch out and confirms their positions; throws what one failed with. */
    void await() throws SQLException, InterruptedException {
      while (!out.isEmpty()) {
        awaitFirst();
      }
    }

    /** Waits for the first batch out and confirms its position; throws what it failed with. */
    private void awaitFirst() throws SQLException, InterruptedException {
      CompletableFuture<Void> f = out.peekFirst().done();
      long half = Math.max(1, statusInterval.toNanos() / 2);
      long alive = System.nanoTime() + half;
      while (!f.isDone()) {
        LockSupport.parkNanos(this, Math.max(1, alive - System.nanoTime()));
        if (Thread.interrupted()) {
          interrupted = true;
          throw new InterruptedException("interrupted while a batch was processed");
        }
        if (System.nanoTime() - alive >= 0) {
          stream.forceUpdateStatus();
          alive = System.nanoTime() + half;
        }
      }
      confirmFirst();
    }

    private void confirmFirst() throws SQLException, InterruptedException {
      Out first = out.removeFirst();
      try {
        first.done().get();
      } catch (ExecutionException e) { // thrown on as the reader would have thrown it
        Throwable cause = e.getCause();
        if (cause instanceof SQLException sql) {
          throw sql;
        } else if (cause instanceof InterruptedException interrupted) {
          throw interrupted;
        } else if (cause instanceof RuntimeException runtime) {
          throw runtime;
        } else if (cause instanceof Error error) {
          throw error;
        }
        throw new IllegalStateException(cause);
      }
      LogSequenceNumber position = LogSequenceNumber.valueOf(first.lsn());
      stream.setAppliedLSN(position);
      stream.setFlushedLSN(position);
      stream.forceUpdateStatus();
      confirmedLsn.set(first.lsn());
      Out next = out.peekFirst();
      processingOldest = next == null ? NO_COMMIT : next.oldest();
    }

    /**
     * Lets the batches still out finish (the stream failed: what they record is not confirmed, and
     * their events come again, to be skipped as recorded) and waits for the threads to end, so that
     * the next stream's batches never run beside them. If the reader is interrupted, which only a
     * close past its timeout does, it interrupts them instead: their transactions roll back and
     * their events come again.
     */
    @Override
    public void close() {
      if (interrupted) {
        threads.shutdownNow();
        Thread.currentThread().interrupt(); // as the reader found it
      } else {
        threads.shutdown();
        if (!out.isEmpty() && running) {
          log.info(
              "WAL relay {}: the stream ended with {} batch(es) out; reading again once they are"
                  + " recorded",
              config.name(),
              out.size());
        }
        try {
          while (!threads.awaitTermination(1, TimeUnit.SECONDS)) {
            log.debug("WAL relay {}: waiting for the batch threads to end", config.name());
          }
        } catch (InterruptedException e) {
          threads.shutdownNow();
          Thread.currentThread().interrupt();
        }
      }
      batchThreads.clear();
      processingOldest = NO_COMMIT;
    }
  }

  /**
   * Processes one batch; while the broker is unavailable to every event of it, rolls it back, waits
   * the broker probe backoff's next delay with the slot held and publishes it again. While rows of
   * it are not visible yet, looks again after a pause, up to the visibility wait.
   */
  private void processHolding(List<OutboxMessage> events, Map<UUID, Integer> xids)
      throws InterruptedException {
    int probes = 0;
    boolean published = false;
    int lockWaits = 0;
    long visibleBy = System.nanoTime() + visibilityWait.toNanos();
    int looks = 0;
    String unavailable;
    try {
      while (true) {
        try {
          unavailable = process(events, xids, System.nanoTime() - visibleBy >= 0);
        } catch (NotVisibleYet e) {
          visibilityWaits.incrementAndGet();
          hold(LOOKS.delayAfter(++looks, ThreadLocalRandom.current()));
          continue;
        } catch (org.jooq.exception.DataAccessException e) {
          if ("40P01".equals(e.sqlState())) {
            // The ordered claim of a polling relay waited for rows of this batch while this relay
            // waited for rows of its run; the server failed this side, which tries again.
            log.info(
                "WAL relay {}: batch rolled back to break a deadlock with another relay;"
                    + " processing it again",
                config.name());
          } else if ("55P03".equals(e.sqlState())) {
            // Another relay held rows of the batch past the lock timeout (publishing them): claim
            // again (the reader tells the server the relay is alive meanwhile). Said once per
            // batch where an operator sees it, since the slot does not move meanwhile.
            String text =
                "WAL relay {}: rows of the batch held by another relay for {} ({} waits so far);"
                    + " the slot waits with them, claiming again";
            if (lockWaits++ == 0) {
              log.info(text, config.name(), DurationText.of(lockTimeout()), lockWaits);
            } else {
              log.debug(text, config.name(), DurationText.of(lockTimeout()), lockWaits);
            }
          } else {
            throw e;
          }
          hold(FIRST_LOOK); // throws once the relay is closed
          continue;
        }
        if (unavailable == null) {
          break;
        }
        if (probes++ == 0) {
          outage.begins(unavailable);
        }
        hold(config.brokerProbeBackoff().delayAfter(probes, ThreadLocalRandom.current()));
      }
      published = true;
    } finally {
      outage.batchEnds(probes > 0, published, probes + 1);
    }
  }

  /**
   * One outage for every batch the broker is unavailable to (several with {@link
   * #concurrentBatches}, and again after the stream was reopened): it starts when the first of them
   * begins to hold the slot and ends when a batch is published with none holding, so that the
   * listener hears each once per outage, as from the polling relay. A batch that stops holding
   * without being published (a database error, a close) does not end it: the broker was not seen
   * back, and the batch that comes again would otherwise announce the same outage twice.
   */
  private final class Outage {
    private int holding; // guarded by this
    private volatile boolean on; // written under this, read without it by batchEnds's quick look
    private long since; // guarded by this
    private int attempts; // guarded by this: publish attempts of the batches ended in this outage

    /** A batch begins to hold the slot because the broker is unavailable to it. */
    void begins(String reason) {
      synchronized (this) {
        holding++;
        if (on) {
          return;
        }
        on = true;
        since = System.nanoTime();
        attempts = 0;
      }
      step.brokerUnavailable(
          reason,
          "holding the slot and publishing the whole batch again after backoff "
              + DurationText.of(config.brokerProbeBackoff().initialDelay())
              + " to "
              + DurationText.of(config.brokerProbeBackoff().maxDelay()));
    }

    /**
     * A batch ends: it {@code held} the slot or not, was {@code published} after {@code tried}
     * publish attempts or not. No lock while no outage is on, the usual case.
     */
    void batchEnds(boolean held, boolean published, int tried) {
      if (!held && !on) {
        return;
      }
      Duration outage;
      int total;
      synchronized (this) {
        if (held) {
          holding--;
        }
        if (!on) {
          return;
        }
        attempts += tried;
        if (holding > 0 || !published) {
          return;
        }
        on = false;
        outage = Duration.ofNanos(System.nanoTime() - since);
        total = attempts;
      }
      step.brokerAvailable(outage, total + " publish attempts", "resuming");
    }
  }

  /**
   * Waits {@code delay} on the batch thread; the reader, waiting for the batch, tells the server
   * every half status interval that the relay is alive, so that {@code wal_sender_timeout} does not
   * end the stream.
   *
   * @throws InterruptedException if the relay is closed meanwhile
   */
  private void hold(Duration delay) throws InterruptedException {
    long end = System.nanoTime() + delay.toNanos();
    long left;
    while (running && (left = end - System.nanoTime()) > 0) {
      LockSupport.parkNanos(this, left); // close() unparks
      if (Thread.interrupted()) {
        throw new InterruptedException("interrupted while holding the slot");
      }
    }
    if (!running) {
      throw new InterruptedException("closed while holding the slot");
    }
  }

  /**
   * One batch: claim, publish, record, commit; then tell the listener.
   *
   * <p>The stream can deliver a commit before other sessions see it: the server decodes a commit
   * once it is flushed, while the committing session makes it visible only afterwards (at once,
   * usually; after the acknowledgement when it waits for a synchronous standby). So an event that
   * is neither claimed nor visible at all is either deleted (published by the polling relay in
   * {@code DELETE} mode, purged) or not visible yet: unless {@code lastLook}, the batch is rolled
   * back to be looked at again shortly ({@link NotVisibleYet}); on the last look such events are
   * left to the polling relay, which finds any that appear later.
   *
   * @return null, or the reason when the broker was unavailable to every event published: then the
   *     transaction was rolled back and nothing recorded
   * @throws NotVisibleYet if some events' rows are not visible and this is not the last look
   */
  private @Nullable String process(
      List<OutboxMessage> events, Map<UUID, Integer> xids, boolean lastLook)
      throws InterruptedException {
    long started = System.nanoTime();
    UUID[] ids = events.stream().map(OutboxMessage::id).toArray(UUID[]::new);
    int[] counts = new int[2]; // claimed, published
    List<PublishStep.Answer> answered = new ArrayList<>(1);
    try {
      dsl.transaction(
          cfg -> {
            DSLContext tx = cfg.dsl();
            statements.settings(tx);
            OffsetDateTime now = OffsetDateTime.now(clock);
            Set<UUID> pending = new HashSet<>();
            List<UUID> missing = claim(tx, ids, now, pending);
            if (!missing.isEmpty()) {
              if (!lastLook) {
                throw new NotVisibleYet();
              }
              log.info(
                  "WAL relay {}: {} event(s) not visible after {}, left to the polling relay"
                      + " (deleted by another relay, or a commit still waiting, for a"
                      + " synchronous standby for one){}: {}",
                  config.name(),
                  missing.size(),
                  DurationText.of(visibilityWait),
                  config.ordering() == Ordering.NONE
                      ? ""
                      : "; so are their aggregates' later events while their commit runs",
                  missing.size() <= 10 ? missing : missing.subList(0, 10) + " …");
            }
            List<OutboxMessage> send = new ArrayList<>(pending.size());
            for (OutboxMessage m : events) {
              if (pending.contains(m.id())) {
                send.add(m);
              }
            }
            if (config.ordering() != Ordering.NONE) {
              // Those held back by an earlier batch's invisible events first, in an earlier
              // snapshot than the check's: a transaction that stopped running by then is visible
              // to the check, which holds its aggregate back while its events are pending.
              Set<WalStore.Aggregate> blocked = new HashSet<>(stillHeldBack(tx));
              blocked.addAll(WalStore.blocked(tx, send, config.ordering()));
              // An event left to the polling relay holds back the rest of its aggregate too, in
              // this batch and in later ones while its commit is invisible: the check cannot see
              // its row, so it would not.
              if (!missing.isEmpty()) {
                Set<UUID> gone = new HashSet<>(missing);
                for (OutboxMessage m : events) {
                  if (gone.contains(m.id())) {
                    blocked.add(WalStore.Aggregate.of(m));
                    Integer xid = xids.get(m.id());
                    if (xid != null) {
                      heldBack
                          .computeIfAbsent(xid, x -> new HashSet<>())
                          .add(WalStore.Aggregate.of(m));
                    }
                  }
                }
              }
              if (!blocked.isEmpty()) {
                List<UUID> left = new ArrayList<>();
                send.removeIf(m -> blocked.contains(WalStore.Aggregate.of(m)) && left.add(m.id()));
                if (config.completionMode() == CompletionMode.MARK_PROCESSED) {
                  WalStore.unmark(tx, left);
                }
              }
            }
            counts[0] = send.size();
            if (send.isEmpty()) {
              return;
            }
            PublishStep.Answer answer;
            try {
              answer = step.publish(send); // an Error of the publisher's rolls the batch back
            } catch (InterruptedException e) {
              throw new RuntimeInterruption(e);
            }
            if (!answer.answered()) {
              // Unavailable to every event attempted: hold the slot (processHolding), no record.
              throw new Unavailable(Objects.toString(answer.unavailableReason()));
            }
            step.record(tx, answer, rows(now));
            counts[1] = answer.published();
            answered.add(answer);
          });
    } catch (Unavailable e) {
      return e.getMessage();
    } catch (NotVisibleYet e) {
      throw e;
    } catch (org.jooq.exception.DataAccessException | RuntimeInterruption e) {
      if (e instanceof RuntimeInterruption) {
        throw new InterruptedException("interrupted while publishing");
      }
      throw e;
    }
    skippedCount.addAndGet(events.size() - counts[0]);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    log.debug(
        "WAL relay {}: batch of {} read, {} claimed, {} published in {}",
        config.name(),
        events.size(),
        counts[0],
        counts[1],
        DurationText.of(took));
    if (!answered.isEmpty()) {
      step.report(answered.get(0), took);
    }
    return null;
  }

  /**
   * The aggregates {@link #heldBack} still holds back: those of transactions still running in this
   * statement's snapshot. Forgets the others. No statement while nothing is held back.
   */
  private Set<WalStore.Aggregate> stillHeldBack(DSLContext tx) {
    if (heldBack.isEmpty()) {
      return Set.of();
    }
    Set<Integer> running = WalStore.runningXids(tx);
    heldBack.keySet().retainAll(running);
    Set<WalStore.Aggregate> held = new HashSet<>();
    heldBack.values().forEach(held::addAll);
    return held;
  }

  /**
   * Claims those of {@code ids} still pending into {@code pending} and returns the ids whose rows
   * the claim could not see at all: not visible yet, or deleted.
   *
   * <p>In {@link CompletionMode#MARK_PROCESSED} a row another relay finished stays, so an id the
   * claim missed is looked up again in a later snapshot, and claimed if it became visible since. In
   * {@link CompletionMode#DELETE} the polling relay deletes what it publishes, so whether a row was
   * there must come from the claim's own snapshot ({@link WalStore#claimSeen}): a row deleted while
   * the claim waited for it is finished, not missing.
   */
  private List<UUID> claim(DSLContext tx, UUID[] ids, OffsetDateTime now, Set<UUID> pending) {
    Set<UUID> seen;
    if (config.completionMode() == CompletionMode.DELETE) {
      Map<UUID, Boolean> claimed = statements.claimSeen(tx, ids);
      claimed.forEach(
          (id, locked) -> {
            if (locked) {
              pending.add(id);
            }
          });
      seen = claimed.keySet();
    } else {
      pending.addAll(statements.claim(tx, ids, now));
      if (pending.size() == ids.length) {
        return List.of();
      }
      UUID[] unclaimed =
          Arrays.stream(ids).filter(id -> !pending.contains(id)).toArray(UUID[]::new);
      // Each statement has a snapshot of its own: a row can become visible after the claim. So
      // claim again what is visible now, in a later snapshot than the look: a row seen but not
      // claimed then is done or postponed by another relay; one not seen is looked at again.
      seen = statements.visible(tx, unclaimed);
      if (!seen.isEmpty()) {
        pending.addAll(statements.claim(tx, seen.toArray(UUID[]::new), now));
      }
      seen = new HashSet<>(seen);
      seen.addAll(pending);
    }
    List<UUID> missing = new ArrayList<>();
    for (UUID id : ids) {
      if (!seen.contains(id)) {
        missing.add(id);
      }
    }
    return missing;
  }

  /**
   * How long the claim waits for rows another relay holds before it tells the server it is alive
   * and claims again: half the status interval, so that the stream never waits longer than that for
   * a status update, and at most 5 s.
   */
  private Duration lockTimeout() {
    Duration half = statusInterval.dividedBy(2);
    return half.compareTo(MAX_LOCK_WAIT) > 0 ? MAX_LOCK_WAIT : half;
  }

  /** Thrown through jOOQ's transaction to roll it back when the publisher was interrupted. */
  private static final class RuntimeInterruption extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RuntimeInterruption(InterruptedException cause) {
      super(cause);
    }
  }

  /** Thrown through jOOQ's transaction to roll it back when some rows are not visible yet. */
  private static final class NotVisibleYet extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotVisibleYet() {
      super("rows not visible yet", null, false, false);
    }
  }

  /** Thrown through jOOQ's transaction to roll it back when the broker was unavailable to all. */
  private static final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unavailable(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * This relay's statements for the kernel: the published events stay marked by the claim (marked
   * again if the answer came late) or are deleted; the events not attempted lose the claim's mark
   * and, left to the polling relay, wait behind the event of their aggregate that failed (its
   * retry, or now behind a dead letter), even unordered: the WAL relay's policy, one statement per
   * distinct time.
   */
  private PublishStep.Rows rows(OffsetDateTime claimed) {
    return new PublishStep.Rows() {
      @Override
      public void complete(DSLContext tx, List<UUID> ids, OffsetDateTime answeredAt) {
        statements.complete(tx, ids, claimed, answeredAt);
      }

      @Override
      public void release(DSLContext tx, Map<OffsetDateTime, List<UUID>> behind) {
        behind.forEach((until, ids) -> WalStore.defer(tx, ids, until));
      }
    };
  }

  /**
   * Text from the database or a broker, fit for a log line, as the polling relay logs it:
   * credentials masked, control characters escaped so that it can neither split the line nor drive
   * a terminal.
   */
  static String safe(@Nullable String text) {
    return String.valueOf(Printable.of(SecretMasking.maskText(text)));
  }

  private void closeReplication() {
    Connection c = replication;
    replication = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        log.debug("closing the replication connection failed: {}", e.toString());
      }
    }
  }

  /**
   * Stops within the configured shutdown timeout and removes the meters; see {@link
   * #close(Duration)}.
   */
  @Override
  public void close() {
    close(config.shutdownTimeout());
  }

  /**
   * Stops reading and waits up to {@code timeout} for the batch in progress, then interrupts it
   * (its transaction rolls back and its events come again). Positions not confirmed are read again
   * by the next relay on the slot. Idempotent.
   *
   * @throws NullPointerException if {@code timeout} is null
   */
  public void close(Duration timeout) {
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
      batchThreads.forEach(LockSupport::unpark); // ends a hold at once
      try {
        t.join(Math.max(1, timeout.toMillis()));
        if (t.isAlive()) {
          t.interrupt();
          closeReplication();
          t.join(Math.max(1, timeout.toMillis()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    closeReplication();
    if (sweeper != null) {
      try {
        sweeper.close(timeout);
      } catch (RuntimeException e) {
        log.warn("WAL relay {}: closing its sweeper failed: {}", config.name(), e.toString(), e);
      }
    }
    closeMeters.run();
    log.info(
        "WAL relay {} stopped at confirmed position {}; {} events skipped, {} reconnects",
        config.name(),
        LogSequenceNumber.valueOf(confirmedLsn.get()),
        skippedCount.get(),
        reconnects.get());
  }

  /**
   * Stops abruptly, as a crash would: closes the replication connection and interrupts the batches
   * out at once, without confirming anything more. For tests of recovery.
   */
  void abort() {
    running = false;
    closed.set(true);
    closeReplication();
    batchThreads.forEach(Thread::interrupt);
    Thread t = reader;
    if (t != null) {
      t.interrupt();
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Builds a {@link WalRelay}. Not thread-safe; {@link #build()} copies everything. */
  public static final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable String replicationUrl;
    private Properties replicationProperties = new Properties();
    private @Nullable Publisher publisher;
    private OutboxTables tables = OutboxTables.defaults();
    private RelayConfig config = RelayConfig.defaults();
    private @Nullable String slotName;
    private @Nullable String publicationName;
    private boolean createIfMissing = true;
    private final List<RelayListener> listeners = new ArrayList<>();
    private Clock clock = Clock.systemUTC();
    private Duration reconnectDelay = DEFAULT_RECONNECT_DELAY;
    private Duration statusInterval = DEFAULT_STATUS_INTERVAL;
    private Duration visibilityWait = DEFAULT_VISIBILITY_WAIT;
    private Duration minBatchInterval = DEFAULT_MIN_BATCH_INTERVAL;
    private int concurrentBatches = 1;
    private @Nullable OutboxMetrics metrics;
    private boolean sweeper = true;
    private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;

    private Builder() {}

    /** The outbox's database, for the claim, the outcomes and the setup. Required. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * The JDBC URL of the same database for the replication connection, such as {@code
     * jdbc:postgresql://db:5432/app}, and its connection properties ({@code user}, {@code
     * password}). The relay adds {@code replication=database}, {@code assumeMinServerVersion=10}
     * and {@code preferQueryMode=simple}. Connect to the server directly: a pooler such as
     * PgBouncer does not carry replication connections. Required.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code url} does not start with {@code jdbc:postgresql:}
     */
    public Builder replicationUrl(String url, Properties properties) {
      Objects.requireNonNull(url, "url");
      if (!url.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException(
            "replicationUrl must start with jdbc:postgresql: but was "
                + SecretMasking.maskUri(url));
      }
      this.replicationUrl = url;
      Properties copy = new Properties();
      copy.putAll(Objects.requireNonNull(properties, "properties"));
      this.replicationProperties = copy;
      return this;
    }

    /** Where events are sent. Required; the relay never closes it. */
    public Builder publisher(Publisher publisher) {
      this.publisher = Objects.requireNonNull(publisher, "publisher");
      return this;
    }

    /** The outbox's schema, no prefix. Defaults to {@code public}. */
    public Builder schema(String schema) {
      OutboxSchema.requireSchemaName(schema);
      this.tables = tables.withSchema(schema);
      return this;
    }

    /** The outbox's schema and table prefix. Defaults to {@link OutboxTables#defaults()}. */
    public Builder tables(OutboxTables tables) {
      this.tables = Objects.requireNonNull(tables, "tables");
      return this;
    }

    /**
     * Name, batch size, max attempts, backoff, completion mode, shutdown timeout and ordering, as
     * for the polling relay; the broker probe backoff gives the waits while the broker is
     * unavailable to a whole batch (and the delay of events a partly unavailable batch leaves to
     * the polling relay). In the per-aggregate orderings no event is published while its aggregate
     * has an earlier pending event outside the batch (see the README). The poll intervals and
     * workers do not apply. Defaults to {@link RelayConfig#defaults()}.
     */
    public Builder config(RelayConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /**
     * The logical replication slot, up to 63 characters of {@code a-z}, {@code 0-9} and {@code _}.
     * Defaults to {@code txoutbox_<prefix><schema>}.
     *
     * @throws IllegalArgumentException if the name is not a valid slot name
     */
    public Builder slotName(String slotName) {
      this.slotName = requireSlotName(slotName, "slotName");
      return this;
    }

    /**
     * The publication, same rule as the slot name. Defaults to {@code txoutbox_<prefix><schema>}.
     *
     * @throws IllegalArgumentException if the name is not valid
     */
    public Builder publicationName(String publicationName) {
      this.publicationName = requireSlotName(publicationName, "publicationName");
      return this;
    }

    /**
     * Whether {@link #start()} creates a missing publication and slot (and the relay creates the
     * slot anew if it disappears). Off, a missing one fails the start with the SQL to run. Defaults
     * to true.
     */
    public Builder createIfMissing(boolean createIfMissing) {
      this.createIfMissing = createIfMissing;
      return this;
    }

    /**
     * Adds a listener of the outcomes, as {@code OutboxRelay.Builder.listener} does; each is told
     * in the order added, after the relay's meters, and an exception of one is logged and ignored.
     * Defaults to none.
     */
    public Builder listener(RelayListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /** The clock of the recorded times. Defaults to the system UTC clock. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * How long to wait before reopening a failed stream; doubled for each failure in a row, up to
     * 30 s (or this delay, if longer), and back to this after a stream that worked. Defaults to
     * {@link #DEFAULT_RECONNECT_DELAY}.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder reconnectDelay(Duration reconnectDelay) {
      this.reconnectDelay = requirePositive(reconnectDelay, "reconnectDelay");
      return this;
    }

    /**
     * How many batches are claimed, published and recorded at a time, each in its own transaction
     * on its own thread, 1 to {@value #MAX_CONCURRENT_BATCHES}. Defaults to 1: batches reach the
     * publisher one after the other, in commit order. More makes a backlog drain faster where the
     * database has cores to spare, at the price of that order: a later batch may be published
     * before an earlier one finishes. Either way a position is confirmed only once its batch and
     * every batch before it are recorded, so a crash still gives duplicates, never loss. Only with
     * {@link Ordering#NONE}: {@link #build()} refuses more than 1 in the per-aggregate orderings.
     *
     * @throws IllegalArgumentException if out of range
     */
    public Builder concurrentBatches(int concurrentBatches) {
      if (concurrentBatches < 1 || concurrentBatches > MAX_CONCURRENT_BATCHES) {
        throw new IllegalArgumentException(
            "concurrentBatches must be 1 to "
                + MAX_CONCURRENT_BATCHES
                + " but was "
                + concurrentBatches);
      }
      this.concurrentBatches = concurrentBatches;
      return this;
    }

    /**
     * The shortest time from one batch's publish to the next, unless the next is full: while events
     * come faster, each batch gathers those that arrived meanwhile. While writers commit one event
     * at a time, every batch costs the relay a transaction and the database a commit however few
     * its events, so a longer interval makes fewer, larger batches, and the events that arrive
     * within it wait up to that much. The first event after a quiet spell is published at once; a
     * backlog fills its batches without waiting. Zero publishes a batch as soon as the stream has
     * nothing more. Defaults to {@link #DEFAULT_MIN_BATCH_INTERVAL}, at most {@link
     * #MAX_MIN_BATCH_INTERVAL}.
     *
     * @throws IllegalArgumentException if negative or longer than {@link #MAX_MIN_BATCH_INTERVAL}
     */
    public Builder minBatchInterval(Duration minBatchInterval) {
      Objects.requireNonNull(minBatchInterval, "minBatchInterval");
      if (minBatchInterval.isNegative()) {
        throw new IllegalArgumentException(
            "minBatchInterval must not be negative but was " + minBatchInterval);
      }
      if (minBatchInterval.compareTo(MAX_MIN_BATCH_INTERVAL) > 0) {
        throw new IllegalArgumentException(
            "minBatchInterval must be at most "
                + DurationText.of(MAX_MIN_BATCH_INTERVAL)
                + " but was "
                + minBatchInterval);
      }
      this.minBatchInterval = minBatchInterval;
      return this;
    }

    /**
     * Whether the relay builds, starts, closes and exposes ({@link WalRelay#sweeper()}) the polling
     * relay that retries and dead-letters the events it fails, publishes those it postpones or that
     * were inserted with a delay, and sweeps anything the slot missed: an {@code OutboxRelay} on
     * the same data source, tables, publisher, listeners, clock and metrics settings, configured as
     * this relay ({@link #config}) but named {@code <name>-sweeper} and polling every {@link
     * #sweepInterval}. Turn it off only to run that polling relay yourself. Defaults to true.
     */
    public Builder sweeper(boolean sweeper) {
      this.sweeper = sweeper;
      return this;
    }

    /**
     * How often the sweeper polls ({@link #sweeper(boolean)}); it never polls more often, since
     * this relay publishes new events itself. Defaults to {@link #DEFAULT_SWEEP_INTERVAL}.
     *
     * @throws NullPointerException if {@code sweepInterval} is null
     * @throws IllegalArgumentException if not positive
     */
    public Builder sweepInterval(Duration sweepInterval) {
      this.sweepInterval = requirePositive(sweepInterval, "sweepInterval");
      return this;
    }

    /**
     * Registers the relay's meters in {@code registry} with the default {@link OutboxMetrics}
     * settings; the same as {@code metrics(OutboxMetrics.in(registry))}. Needs {@code
     * io.micrometer:micrometer-core}; a relay never given metrics never loads Micrometer.
     *
     * @throws NullPointerException if {@code registry} is null
     */
    public Builder metrics(MeterRegistry registry) {
      return metrics(OutboxMetrics.in(registry));
    }

    /**
     * Registers the relay's meters as {@code metrics} says, at {@link #build()}, each tagged {@code
     * relay=<name>}: {@code outbox.wal.slot.lag.bytes} (read every refresh interval by a thread of
     * its own from {@link #start()} on, never per scrape), {@code outbox.wal.slot.lag.seconds},
     * {@code outbox.wal.confirmed.lsn}, {@code outbox.wal.events.skipped}, {@code
     * outbox.wal.reconnects} and {@code outbox.wal.skipped.transactions}, and the outbox meters
     * every relay has ({@link OutboxMetrics}: published, failed, dead-lettered, batch duration,
     * broker availability, backlog); {@link WalRelay#close()} removes them. Defaults to none.
     *
     * @throws NullPointerException if {@code metrics} is null
     */
    public Builder metrics(OutboxMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * How often the relay tells the server its position while reading, and that it is alive while
     * it holds the slot during a broker outage; keep it well below the server's {@code
     * wal_sender_timeout} (60 s by default). Defaults to {@link #DEFAULT_STATUS_INTERVAL}.
     *
     * @throws IllegalArgumentException if not positive
     */
    Builder statusInterval(Duration statusInterval) {
      this.statusInterval = requirePositive(statusInterval, "statusInterval");
      return this;
    }

    /**
     * How long the relay looks again, with pauses from 1 ms growing to 100 ms, for the rows of a
     * commit the stream delivered but that are not visible yet, before it leaves them to the
     * polling relay. Defaults to {@link #DEFAULT_VISIBILITY_WAIT}.
     *
     * @throws IllegalArgumentException if not positive
     */
    Builder visibilityWait(Duration visibilityWait) {
      this.visibilityWait = requirePositive(visibilityWait, "visibilityWait");
      return this;
    }

    /**
     * A relay with these settings, not yet started.
     *
     * @throws IllegalStateException if the data source, replication URL or publisher is missing, as
     *     the polling relay's builder throws; or if the meter registry already holds the WAL meters
     *     of a relay with this {@link RelayConfig#name()}
     * @throws IllegalArgumentException if {@link #concurrentBatches} is more than 1 in a
     *     per-aggregate ordering
     */
    public WalRelay build() {
      requireSet(dataSource, "dataSource");
      requireSet(replicationUrl, "replicationUrl");
      requireSet(publisher, "publisher");
      if (concurrentBatches > 1 && config.ordering() != Ordering.NONE) {
        throw new IllegalArgumentException(
            "concurrentBatches must be 1 in ordering "
                + config.ordering()
                + " but was "
                + concurrentBatches
                + ": each batch's check of earlier events needs the outcomes of the batches before"
                + " it");
      }
      return new WalRelay(this);
    }

    private static void requireSet(@Nullable Object value, String option) {
      if (value == null) {
        throw new IllegalStateException(
            "the WAL relay must be given " + option + "(...) but was not");
      }
    }

    private static Duration requirePositive(Duration value, String option) {
      Objects.requireNonNull(value, option);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(option + " must be positive but was " + value);
      }
      return value;
    }

    private static String requireSlotName(String name, String option) {
      Objects.requireNonNull(name, option);
      if (!SLOT_NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            option + " must be 1 to 63 characters of a-z, 0-9 and _ but was '" + name + "'");
      }
      return name;
    }
  }
}
