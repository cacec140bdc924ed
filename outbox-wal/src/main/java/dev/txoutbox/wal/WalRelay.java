package dev.txoutbox.wal;

import dev.txoutbox.Backoff;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.SecretMasking;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGProperty;
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
 * every {@link WalRelayBuilder#sweepInterval sweep interval}: it retries and dead-letters them and
 * sweeps anything the slot missed (a slot dropped or lost and created anew).
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
   * {@link WalRelayBuilder#visibilityWait(Duration)}.
   */
  static final Duration DEFAULT_VISIBILITY_WAIT = Duration.ofSeconds(5);

  /**
   * Defaults to this shortest time between two batches that are not full: 1 ms. See {@link
   * WalRelayBuilder#minBatchInterval(Duration)}.
   */
  public static final Duration DEFAULT_MIN_BATCH_INTERVAL = Duration.ofMillis(1);

  /**
   * The longest {@link WalRelayBuilder#minBatchInterval(Duration)}: 1 s. Past it the interval would
   * delay events rather than gather them; {@code notBefore} is the way to delay an event.
   */
  public static final Duration MAX_MIN_BATCH_INTERVAL = Duration.ofSeconds(1);

  /** Defaults to this interval between two polls of the sweeper: 30 s. */
  public static final Duration DEFAULT_SWEEP_INTERVAL = Duration.ofSeconds(30);

  /** The most batches {@link WalRelayBuilder#concurrentBatches} lets out at a time. */
  public static final int MAX_CONCURRENT_BATCHES = 8;

  /** Defaults to this interval between two status updates to the server: 10 s. */
  static final Duration DEFAULT_STATUS_INTERVAL = Duration.ofSeconds(10);

  /** {@link #oldestUnconfirmed} when every commit read is confirmed. */
  static final long NO_COMMIT = Long.MIN_VALUE;

  /** The longest the claim waits for a row another relay holds before it claims again. */
  private static final Duration MAX_LOCK_WAIT = Duration.ofSeconds(5);

  /** PostgreSQL's epoch, of the commit times in the stream. */
  private static final Instant PG_EPOCH = Instant.parse("2000-01-01T00:00:00Z");

  /**
   * How long the reader sleeps when the stream has nothing and no batch is pending, unless the
   * driver's look for more already waited: pgjdbc's {@code readPending()} reads the socket with a 1
   * ms timeout when nothing is buffered, and wakes as soon as data comes.
   */
  static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** A {@code readPending()} that returned nothing faster than this did not wait for data. */
  static final long WAITED_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

  private final DataSource dataSource;
  final DSLContext dsl;

  private final WalStatements statements;
  final String replicationUrl;
  final Properties replicationProperties;
  private final Publisher publisher;
  final OutboxTables tables;
  final RelayConfig config;
  final String slotName;
  final String publicationName;
  final boolean createIfMissing;

  /** The kernel shared with the polling relay: publish, record, report, outages, heartbeat. */
  final RelayKernel kernel;

  final RelayListener listener;
  private final Clock clock;
  final Duration reconnectDelay;
  final Backoff reconnectBackoff;
  final Duration statusInterval;
  private final Duration visibilityWait;
  final long minBatchNanos;
  final int concurrentBatches;
  final String metricsText;
  final Runnable closeMeters;
  final @Nullable WalSweeper sweeper;

  /** Makes every thread the relay starts: the library's, or the user's factory's. */
  final RelayKernel.Threads threads;

  /** Whether the relay is running: false once closed. */
  boolean running() {
    return lifecycle.running();
  }

  final AtomicLong confirmedLsn = new AtomicLong();
  final AtomicLong skippedCount = new AtomicLong();
  final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong visibilityWaits = new AtomicLong();
  final AtomicLong skippedTransactions = new AtomicLong();

  /** Claims, publishes and records each batch (the per-batch step). */
  final WalBatchStep batchStep;

  /** Reads the stream and hands its batches to {@link #batchStep}. */
  final WalStreamReader streamReader;

  /** Starts and stops the relay. */
  private final WalLifecycle lifecycle;

  WalRelay(WalRelayBuilder b) {
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
    this.threads = RelayKernel.Threads.of(b.config.name(), b.threadFactory);
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
    this.kernel =
        new RelayKernel(
            "dev.txoutbox.wal",
            publisher,
            config,
            clock,
            meterListener,
            b.listeners,
            reconnectBackoff,
            b.tracer,
            threads);
    this.listener = kernel.listener();
    this.batchStep =
        new WalBatchStep(
            dsl,
            statements,
            config,
            clock,
            kernel,
            visibilityWait,
            lockTimeout(),
            this::running,
            skippedCount,
            visibilityWaits);
    this.streamReader = new WalStreamReader(this);
    this.sweeper = b.sweeper ? sweeper(b) : null;
    this.lifecycle = new WalLifecycle(this);
  }

  /** The sweeper {@code b} asks for; if it cannot be built, the meters registered go too. */
  private WalSweeper sweeper(WalRelayBuilder b) {
    try {
      return WalSweeper.build(
          dataSource,
          tables,
          publisher,
          config,
          clock,
          b.tracer,
          b.listeners,
          b.metrics,
          b.sweepInterval,
          threads);
    } catch (RuntimeException e) {
      closeMeters.run(); // build() fails as a whole
      throw e;
    }
  }

  /** {@code txoutbox_<prefix><schema>}, the default slot and publication name. */
  static String defaultName(OutboxTables tables) {
    return ("txoutbox_" + tables.tablePrefix() + tables.schema())
        .toLowerCase(java.util.Locale.ROOT);
  }

  /** A builder with the defaults. */
  public static WalRelayBuilder builder() {
    return new WalRelayBuilder();
  }

  /**
   * The polling relay that retries, dead-letters and sweeps behind this one (see {@link
   * WalRelayBuilder#sweeper(boolean)}), or empty if it was turned off. Started one {@link
   * WalRelayBuilder#sweepInterval sweep interval} after the stream opened (once {@link #start()}'s
   * checks passed and the events pending at the slot's creation were published), so that its first
   * poll does not take, in {@code seq} order, the events the stream is publishing in commit order;
   * closed by {@link #close()}.
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
    long oldest = streamReader.oldestUnconfirmed();
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
    return lifecycle.isRunning();
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
   * @throws WalSettingsException (an {@code IllegalStateException}) if a slot of its name belongs
   *     to another database: its message names the options to change
   */
  public void start() {
    lifecycle.start();
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

  /**
   * How long the claim waits for rows another relay holds before it tells the server it is alive
   * and claims again: half the status interval, so that the stream never waits longer than that for
   * a status update, and at most 5 s.
   */
  private Duration lockTimeout() {
    Duration half = statusInterval.dividedBy(2);
    return half.compareTo(MAX_LOCK_WAIT) > 0 ? MAX_LOCK_WAIT : half;
  }

  /** The publisher, as the start line and the heartbeat describe it. */
  String publisherDescription() {
    return publisher.describe();
  }

  /**
   * Text from the database or a broker, fit for a log line, as the polling relay logs it:
   * credentials masked, control characters escaped so that it can neither split the line nor drive
   * a terminal.
   */
  static String safe(@Nullable String text) {
    return String.valueOf(Printable.of(SecretMasking.maskText(text)));
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
   * by the next relay on the slot. Closes the sweeper and removes the meters. Idempotent.
   *
   * @throws NullPointerException if {@code timeout} is null
   */
  public void close(Duration timeout) {
    lifecycle.close(timeout);
  }

  /**
   * Stops abruptly, as a crash would: closes the replication connection and interrupts the batches
   * out at once, without confirming anything more; the heartbeat, the sweeper and the meters stop
   * too. For tests of recovery.
   */
  void abort() {
    lifecycle.abort();
  }
}
