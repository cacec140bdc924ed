package dev.txoutbox.wal;

import dev.txoutbox.Ordering;
import dev.txoutbox.PublishTracer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link WalRelay}: {@link WalRelay#builder()}. Each value option is checked as it is set,
 * by its definition in {@link WalOptions} (the options every relay shares come with {@link
 * #config}, checked by {@code RelayOptions}'s). Not thread-safe; {@link #build()} copies
 * everything.
 */
public final class WalRelayBuilder {

  @Nullable DataSource dataSource;
  @Nullable String replicationUrl;
  Properties replicationProperties = new Properties();
  @Nullable Publisher publisher;
  OutboxTables tables = OutboxTables.defaults();
  RelayConfig config = RelayConfig.defaults();
  @Nullable String slotName;
  @Nullable String publicationName;
  boolean createIfMissing = true;
  final List<RelayListener> listeners = new ArrayList<>();
  Clock clock = Clock.systemUTC();
  Duration reconnectDelay = WalRelay.DEFAULT_RECONNECT_DELAY;
  Duration statusInterval = WalRelay.DEFAULT_STATUS_INTERVAL;
  Duration visibilityWait = WalRelay.DEFAULT_VISIBILITY_WAIT;
  Duration minBatchInterval = WalRelay.DEFAULT_MIN_BATCH_INTERVAL;
  int concurrentBatches = 1;
  @Nullable OutboxMetrics metrics;
  boolean sweeper = true;
  Duration sweepInterval = WalRelay.DEFAULT_SWEEP_INTERVAL;
  PublishTracer tracer = PublishTracer.none();
  @Nullable ThreadFactory threadFactory;

  WalRelayBuilder() {}

  /** The outbox's database, for the claim, the outcomes and the setup. Required. */
  public WalRelayBuilder dataSource(DataSource dataSource) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    return this;
  }

  /**
   * The JDBC URL of the same database for the replication connection, such as {@code
   * jdbc:postgresql://db:5432/app}, and its connection properties ({@code user}, {@code password}).
   * The relay adds {@code replication=database}, {@code assumeMinServerVersion=10} and {@code
   * preferQueryMode=simple}. Connect to the server directly: a pooler such as PgBouncer does not
   * carry replication connections. Required.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code url} does not start with {@code jdbc:postgresql:}
   *     (the message shows it with its password masked)
   */
  public WalRelayBuilder replicationUrl(String url, Properties properties) {
    this.replicationUrl = WalOptions.REPLICATION_URL.check(url);
    Properties copy = new Properties();
    copy.putAll(Objects.requireNonNull(properties, "properties"));
    this.replicationProperties = copy;
    return this;
  }

  /** Where events are sent. Required; the relay never closes it. */
  public WalRelayBuilder publisher(Publisher publisher) {
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    return this;
  }

  /** The outbox's schema, no prefix. Defaults to {@code public}. */
  public WalRelayBuilder schema(String schema) {
    OutboxSchema.requireSchemaName(schema);
    this.tables = tables.withSchema(schema);
    return this;
  }

  /** The outbox's schema and table prefix. Defaults to {@link OutboxTables#defaults()}. */
  public WalRelayBuilder tables(OutboxTables tables) {
    this.tables = Objects.requireNonNull(tables, "tables");
    return this;
  }

  /**
   * Name, batch size, max attempts, backoff, per-type retry policies, completion mode, shutdown
   * timeout, ordering and vacuum interval (the events table's {@code VACUUM} every so often, run by
   * this relay whether or not its sweeper runs), as for the polling relay; the broker probe backoff
   * gives the waits while the broker is unavailable to a whole batch (and the delay of events a
   * partly unavailable batch leaves to the polling relay). In the per-aggregate orderings no event
   * is published while its aggregate has an earlier pending event outside the batch (see the
   * README). The poll intervals and workers do not apply. Defaults to {@link
   * RelayConfig#defaults()}.
   */
  public WalRelayBuilder config(RelayConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    return this;
  }

  /**
   * The logical replication slot, up to 63 characters of {@code a-z}, {@code 0-9} and {@code _}.
   * Defaults to {@code txoutbox_<prefix><schema>}.
   *
   * @throws IllegalArgumentException if the name is not a valid slot name
   */
  public WalRelayBuilder slotName(String slotName) {
    this.slotName = WalOptions.SLOT_NAME.check(slotName);
    return this;
  }

  /**
   * The publication, same rule as the slot name. Defaults to {@code txoutbox_<prefix><schema>}.
   *
   * @throws IllegalArgumentException if the name is not valid
   */
  public WalRelayBuilder publicationName(String publicationName) {
    this.publicationName = WalOptions.PUBLICATION_NAME.check(publicationName);
    return this;
  }

  /**
   * Whether {@link WalRelay#start()} creates a missing publication and slot (and the relay creates
   * the slot anew if it disappears). Off, a missing one fails the start with the SQL to run.
   * Defaults to true.
   */
  public WalRelayBuilder createIfMissing(boolean createIfMissing) {
    this.createIfMissing = createIfMissing;
    return this;
  }

  /**
   * Adds a listener of the outcomes, as {@code OutboxRelay.Builder.listener} does; each is told in
   * the order added, after the relay's meters, and an exception of one is logged and ignored.
   * Defaults to none.
   */
  public WalRelayBuilder listener(RelayListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /**
   * Traces each publish, of this relay and of its sweeper: one span per event and attempt, through
   * {@code tracer} (such as {@code OpenTelemetryPublishTracer}). Defaults to {@link
   * PublishTracer#none()}, which costs nothing.
   */
  public WalRelayBuilder publishTracer(PublishTracer tracer) {
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    return this;
  }

  /**
   * Makes every thread the relay starts (its stream reader, batch threads, meters' refresh,
   * heartbeat, and its sweeper's threads), as it makes them: its names, its daemon flag, its kind
   * of thread. Defaults to none: the relay makes daemon threads named {@code
   * outbox-wal-<name>-<role>} ({@code -reader}, {@code -batch}, {@code -meters}, {@code
   * -sweeper-start}) and, for what it shares with the polling relay, {@code
   * outbox-relay-<name>-<role>} ({@code -heartbeat}, {@code -metrics}).
   */
  public WalRelayBuilder threadFactory(ThreadFactory threadFactory) {
    this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
    return this;
  }

  /** The clock of the recorded times. Defaults to the system UTC clock. */
  public WalRelayBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * How long to wait before reopening a failed stream; doubled for each failure in a row, up to 30
   * s (or this delay, if longer), and back to this after a stream that worked. Defaults to {@link
   * WalRelay#DEFAULT_RECONNECT_DELAY}.
   *
   * @throws IllegalArgumentException if not positive
   */
  public WalRelayBuilder reconnectDelay(Duration reconnectDelay) {
    this.reconnectDelay = WalOptions.RECONNECT_DELAY.check(reconnectDelay);
    return this;
  }

  /**
   * How many batches are claimed, published and recorded at a time, each in its own transaction on
   * its own thread, 1 to {@value WalRelay#MAX_CONCURRENT_BATCHES}. Defaults to 1: batches reach the
   * publisher one after the other, in commit order. More makes a backlog drain faster where the
   * database has cores to spare, at the price of that order: a later batch may be published before
   * an earlier one finishes. Either way a position is confirmed only once its batch and every batch
   * before it are recorded, so a crash still gives duplicates, never loss. Only with {@link
   * Ordering#NONE}: {@link #build()} refuses more than 1 in the per-aggregate orderings.
   *
   * @throws IllegalArgumentException if out of range
   */
  public WalRelayBuilder concurrentBatches(int concurrentBatches) {
    this.concurrentBatches = WalOptions.CONCURRENT_BATCHES.check(concurrentBatches);
    return this;
  }

  /**
   * The shortest time from one batch's publish to the next, unless the next is full: while events
   * come faster, each batch gathers those that arrived meanwhile. While writers commit one event at
   * a time, every batch costs the relay a transaction and the database a commit however few its
   * events, so a longer interval makes fewer, larger batches, and the events that arrive within it
   * wait up to that much. The first event after a quiet spell is published at once; a backlog fills
   * its batches without waiting. Zero publishes a batch as soon as the stream has nothing more.
   * Defaults to {@link WalRelay#DEFAULT_MIN_BATCH_INTERVAL}, at most {@link
   * WalRelay#MAX_MIN_BATCH_INTERVAL}.
   *
   * @throws IllegalArgumentException if negative or longer than {@link
   *     WalRelay#MAX_MIN_BATCH_INTERVAL}
   */
  public WalRelayBuilder minBatchInterval(Duration minBatchInterval) {
    this.minBatchInterval = WalOptions.MIN_BATCH_INTERVAL.check(minBatchInterval);
    return this;
  }

  /**
   * Whether the relay builds, starts, closes and exposes ({@link WalRelay#sweeper()}) the polling
   * relay that retries and dead-letters the events it fails, publishes those it postpones or that
   * were inserted with a delay, and sweeps anything the slot missed: an {@code OutboxRelay} on the
   * same data source, tables, publisher, listeners, clock and metrics settings, configured as this
   * relay ({@link #config}) but named {@code <name>-sweeper} and polling every {@link
   * #sweepInterval}, from one sweep interval after the stream opened. Turn it off only to run that
   * polling relay yourself. Defaults to true.
   */
  public WalRelayBuilder sweeper(boolean sweeper) {
    this.sweeper = sweeper;
    return this;
  }

  /**
   * How often the sweeper polls ({@link #sweeper(boolean)}), and how long after the stream opened
   * it starts; it never polls more often, since this relay publishes new events itself. Defaults to
   * {@link WalRelay#DEFAULT_SWEEP_INTERVAL}.
   *
   * @throws NullPointerException if {@code sweepInterval} is null
   * @throws IllegalArgumentException if not positive
   */
  public WalRelayBuilder sweepInterval(Duration sweepInterval) {
    this.sweepInterval = WalOptions.SWEEP_INTERVAL.check(sweepInterval);
    return this;
  }

  /**
   * Registers the relay's meters in {@code registry} with the default {@link OutboxMetrics}
   * settings; the same as {@code metrics(OutboxMetrics.in(registry))}. Needs {@code
   * io.micrometer:micrometer-core}; a relay never given metrics never loads Micrometer.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public WalRelayBuilder metrics(MeterRegistry registry) {
    return metrics(OutboxMetrics.in(registry));
  }

  /**
   * Registers the relay's meters as {@code metrics} says, at {@link #build()}, each tagged {@code
   * relay=<name>}: {@code outbox.wal.slot.lag.bytes} (read every refresh interval by a thread of
   * its own from {@link WalRelay#start()} on, never per scrape), {@code
   * outbox.wal.slot.lag.seconds}, {@code outbox.wal.confirmed.lsn}, {@code
   * outbox.wal.events.skipped}, {@code outbox.wal.reconnects} and {@code
   * outbox.wal.skipped.transactions}, and the outbox meters every relay has ({@link OutboxMetrics}:
   * published, failed, dead-lettered, batch duration, broker availability, backlog); {@link
   * WalRelay#close()} removes them. Defaults to none.
   *
   * @throws NullPointerException if {@code metrics} is null
   */
  public WalRelayBuilder metrics(OutboxMetrics metrics) {
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    return this;
  }

  /**
   * How often the relay tells the server its position while reading, and that it is alive while it
   * holds the slot during a broker outage; keep it well below the server's {@code
   * wal_sender_timeout} (60 s by default). Defaults to {@link WalRelay#DEFAULT_STATUS_INTERVAL}.
   *
   * @throws IllegalArgumentException if not positive
   */
  WalRelayBuilder statusInterval(Duration statusInterval) {
    this.statusInterval = WalOptions.STATUS_INTERVAL.check(statusInterval);
    return this;
  }

  /**
   * How long the relay looks again, with pauses from 1 ms growing to 100 ms, for the rows of a
   * commit the stream delivered but that are not visible yet, before it leaves them to the polling
   * relay. Defaults to {@link WalRelay#DEFAULT_VISIBILITY_WAIT}.
   *
   * @throws IllegalArgumentException if not positive
   */
  WalRelayBuilder visibilityWait(Duration visibilityWait) {
    this.visibilityWait = WalOptions.VISIBILITY_WAIT.check(visibilityWait);
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
}
