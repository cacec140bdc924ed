package dev.txoutbox;

import dev.txoutbox.internal.OutboxDatabase;
import dev.txoutbox.internal.admin.DefaultOutboxAdmin;
import dev.txoutbox.internal.metrics.RelayMeters;
import dev.txoutbox.internal.relay.DefaultOutboxRelay;
import dev.txoutbox.internal.relay.RelayParts;
import dev.txoutbox.internal.relay.RelayThreads;
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
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Publishes committed outbox events through a {@link Publisher}, at least once.
 *
 * <p>Each worker repeats one short transaction: claim up to {@code batchSize} due events in insert
 * order ({@code FOR UPDATE SKIP LOCKED}, so any number of relays share the table), hand the whole
 * batch to the publisher, mark or delete every acknowledged event with one statement, record every
 * failure with one statement (backoff, or dead letter), commit. Full batches are followed at once
 * by the next; otherwise the worker waits, from {@code minPollInterval} doubling to {@code
 * maxPollInterval} while idle, or until {@link #wakeUp()}.
 *
 * <p>An event is completed only after the broker acknowledged it. A crash at any point leaves it
 * pending, so it is published again: duplicates are possible, losses are not. A failing cycle
 * (database or broker down) is logged, backed off and retried; the workers never die.
 *
 * <p>The outbox is located once, here: the relay's {@link Builder#schema(String) schema} and
 * database are those of its {@link #admin()}, of its {@link Builder#metrics(MeterRegistry) meters}
 * (named after {@link RelayConfig#name()}, created by {@link Builder#build()} and removed by {@link
 * #close()}) and of a writer built with {@link Outbox.Builder#relay(OutboxRelay)} in the same
 * process, so none of them can silently watch or fill another schema.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder()
 *     .dataSource(dataSource).schema("billing").publisher(publisher)
 *     .config(RelayConfig.builder().name("orders").build())
 *     .metrics(registry)                                 // optional
 *     .build();
 * Outbox outbox = Outbox.builder().relay(relay).build(); // records into billing, wakes the relay
 * OutboxAdmin admin = relay.admin();                     // billing too
 * relay.start();
 * // shutdown: relay.close() (also removes its meters), then publisher.close()
 * }</pre>
 *
 * <p>This type is thread-safe.
 */
public interface OutboxRelay extends AutoCloseable {

  /** Starts configuring a relay. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the worker threads ({@code outbox-relay-<name>-worker-<n>}, or those of {@link
   * Builder#threadFactory}) and returns.
   *
   * <p>Unless a thread factory says otherwise, the workers are daemon threads: they never keep the
   * JVM alive, so a JVM that exits without {@link #close()} does not hang on them (an unfinished
   * batch rolls back with its connection, and nothing is lost). A {@code main} whose only work is
   * the relay must therefore wait for it itself, or it exits at once:
   *
   * <pre>{@code
   * relay.closeOnShutdown(); // SIGTERM or Ctrl-C closes the relay cleanly
   * relay.start();
   * relay.awaitTermination(); // returns once the relay is closed
   * }</pre>
   *
   * @throws IllegalStateException if already started or closed
   */
  void start();

  /** Makes idle workers look for events now. Cheap; safe from any thread at any time. */
  void wakeUp();

  /** Whether the relay was started and not yet closed. */
  boolean isRunning();

  /** This relay's configuration. */
  RelayConfig config();

  /** The schema holding the outbox tables this relay drains: {@link Builder#schema(String)}. */
  String schema();

  /**
   * Admin operations on this relay's outbox: the same database, schema and clock, each statement in
   * its own transaction (or in the {@link Builder#dsl dsl}'s, as {@link OutboxAdmin.Builder#dsl}
   * says). Its backlog gauges read the same. Usable before {@link #start()} and after {@link
   * #close()}; the same instance on every call.
   */
  OutboxAdmin admin();

  /**
   * Runs one claim-publish-complete cycle of at most {@code batchSize} events on the calling
   * thread, whether or not the relay is started; for tools that drive the relay by hand. Tests
   * usually want {@link #drain()}, which reports what was published.
   *
   * @return the number of events <em>claimed</em>, whatever became of them: published, failed
   *     (retried later or dead-lettered) or not sent because the broker was unavailable. It is not
   *     the number published: {@code runOnce() == 1} holds when the publisher failed the event.
   * @throws InterruptedException if interrupted while publishing; the batch is rolled back and the
   *     thread's interrupt flag is cleared, as with every {@code InterruptedException}
   */
  int runOnce() throws InterruptedException;

  /**
   * Publishes everything due, synchronously on the calling thread, and says what became of it: the
   * synchronous drain for tests. Runs cycles of {@code batchSize} events until one claims nothing
   * due, or makes no progress (nothing published, retried or dead-lettered: the broker was
   * unavailable to the whole batch, whose events stay pending at no attempt). "Due" is decided by
   * the relay's {@link Builder#clock(Clock) clock}: with a clock the test moves, an event delayed
   * or backed off stays pending until the clock passes its time, and a later drain publishes it.
   *
   * <p>With the system clock and a short backoff, a retried event may come due again within the
   * same drain and be attempted again, up to {@link RelayConfig#maxAttempts()}; each attempt counts
   * once in {@link DrainResult#retried()}. In the per-aggregate orderings, up to {@value
   * DrainResult#MAX_EMPTY_FULL_CYCLES} consecutive cycles that pass over only blocked aggregates
   * are run before stopping, so due events behind up to that many batches of blocked aggregates are
   * reached.
   *
   * <pre>{@code
   * DrainResult drained = relay.drain();
   * assertThat(drained.published()).containsExactly(eventId);
   * }</pre>
   *
   * @return what was published, retried and dead-lettered
   * @throws IllegalStateException if the relay is {@link #start() started} and not yet closed: its
   *     workers would publish events concurrently and the result would miss them. Drain a relay
   *     that was never started, or one that was closed.
   * @throws InterruptedException if interrupted while publishing; that batch is rolled back (the
   *     earlier ones stay committed) and the thread's interrupt flag is cleared
   */
  DrainResult drain() throws InterruptedException;

  /**
   * Blocks until the relay is {@link #close() closed} (by another thread, or by the hook of {@link
   * #closeOnShutdown()}) and its close has finished. Returns at once if it already was. Also waits
   * for a relay that was never started, until it is closed.
   *
   * @throws InterruptedException if interrupted while waiting; the interrupt flag is cleared
   */
  void awaitTermination() throws InterruptedException;

  /**
   * Blocks until the relay is closed, as {@link #awaitTermination()}, or {@code timeout} passes.
   *
   * @return true if the relay is closed, false if the time ran out first
   * @throws NullPointerException if {@code timeout} is null
   * @throws InterruptedException if interrupted while waiting; the interrupt flag is cleared
   */
  boolean awaitTermination(Duration timeout) throws InterruptedException;

  /**
   * Registers a JVM shutdown hook ({@code outbox-relay-<name>-shutdown}) that {@link #close()
   * closes} the relay when the JVM is asked to stop (SIGTERM, SIGINT, {@code System.exit}), so the
   * in-flight batch finishes within {@link RelayConfig#shutdownTimeout()} instead of being cut off.
   * Calling {@link #close()} yourself removes the hook. Idempotent: a second call registers
   * nothing.
   *
   * @return this relay
   * @throws IllegalStateException if the relay is closed, or the JVM is already shutting down
   */
  OutboxRelay closeOnShutdown();

  /**
   * Closes with the configured {@link RelayConfig#shutdownTimeout()}; see {@link #close(Duration)}.
   */
  @Override
  void close();

  /**
   * Stops claiming and waits up to {@code timeout} for in-flight batches to commit; a batch still
   * running then is interrupted and rolled back, so its events stay pending. Then removes the
   * relay's meters, if it was given {@link Builder#metrics(OutboxMetrics) metrics}. Idempotent;
   * also for a relay that was never started. Does not close the publisher.
   */
  void close(Duration timeout);

  /**
   * What a {@link OutboxRelay#drain()} did. Immutable and thread-safe.
   *
   * <p>A final class with accessors rather than a record, so that a count can be added later
   * without breaking callers.
   */
  final class DrainResult {

    /**
     * How many consecutive cycles that claim nothing but pass over a full batch of blocked
     * aggregates (per-aggregate orderings only) a drain runs before it stops: 10.
     */
    public static final int MAX_EMPTY_FULL_CYCLES = 10;

    private final List<UUID> published;
    private final int retried;
    private final int deadLettered;
    private final int unavailable;
    private final int cycles;

    private DrainResult(
        List<UUID> published, int retried, int deadLettered, int unavailable, int cycles) {
      this.published = List.copyOf(published);
      this.retried = retried;
      this.deadLettered = deadLettered;
      this.unavailable = unavailable;
      this.cycles = cycles;
    }

    /**
     * A result, for implementations of {@link OutboxRelay}.
     *
     * @throws NullPointerException if {@code published} is null or holds null
     * @throws IllegalArgumentException if a count is negative
     */
    public static DrainResult of(
        List<UUID> published, int retried, int deadLettered, int unavailable, int cycles) {
      Objects.requireNonNull(published, "published");
      requireCount("retried", retried);
      requireCount("deadLettered", deadLettered);
      requireCount("unavailable", unavailable);
      requireCount("cycles", cycles);
      return new DrainResult(published, retried, deadLettered, unavailable, cycles);
    }

    private static void requireCount(String name, int value) {
      if (value < 0) {
        throw new IllegalArgumentException(name + " must be at least 0 but was " + value);
      }
    }

    /**
     * The ids of the events the broker acknowledged and that were marked processed (or deleted), in
     * the order they were published. Never an event that was claimed but failed.
     */
    public List<UUID> published() {
      return published;
    }

    /** How many events were published: the size of {@link #published()}. */
    public int publishedCount() {
      return published.size();
    }

    /**
     * How many attempts failed with the event scheduled for a retry after its backoff (they stay
     * pending; with a clock that does not move they are not due again within this drain).
     */
    public int retried() {
      return retried;
    }

    /** How many events became dead letters: permanent failures, or {@code maxAttempts} reached. */
    public int deadLettered() {
      return deadLettered;
    }

    /**
     * How many events were not sent because the broker was unavailable; they stay pending at no
     * attempt. A drain stops at a cycle in which the broker was unavailable to the whole batch.
     */
    public int unavailable() {
      return unavailable;
    }

    /** How many claim-publish-complete cycles ran, the last one included. */
    public int cycles() {
      return cycles;
    }

    @Override
    public String toString() {
      return "DrainResult[published="
          + published.size()
          + ", retried="
          + retried
          + ", deadLettered="
          + deadLettered
          + ", unavailable="
          + unavailable
          + ", cycles="
          + cycles
          + "]";
    }
  }

  /** Configures an {@link OutboxRelay}. Not thread-safe. */
  final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable DSLContext dsl;
    private @Nullable Publisher publisher;
    private String schema = OutboxSchema.DEFAULT_SCHEMA;
    private String tablePrefix = "";
    private RelayConfig config = RelayConfig.defaults();
    private Clock clock = Clock.systemUTC();
    private final List<RelayListener> listeners = new ArrayList<>();
    private boolean listen;
    private @Nullable DataSource listenDataSource;
    private @Nullable OutboxMetrics metrics;
    private PublishTracer tracer = PublishTracer.none();
    private @Nullable ThreadFactory threadFactory;

    private Builder() {}

    /** Where the outbox lives; the relay runs its own transactions on it. Or use {@link #dsl}. */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /** Where the outbox lives, as a jOOQ context; an alternative to {@link #dataSource}. */
    public Builder dsl(DSLContext dsl) {
      this.dsl = Objects.requireNonNull(dsl, "dsl");
      return this;
    }

    /** The broker plugin. Required. */
    public Builder publisher(Publisher publisher) {
      this.publisher = Objects.requireNonNull(publisher, "publisher");
      return this;
    }

    /**
     * The schema holding the outbox tables, checked at {@link #build()} with {@link
     * OutboxSchema#requireSchemaName(String)}. The relay's {@link OutboxRelay#admin() admin}, its
     * backlog gauges and its NOTIFY channel follow it. Defaults to {@code public}.
     */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /**
     * The prefix of the outbox's table names: {@code bill_} drains {@code
     * <schema>.bill_outbox_events}, as migrated by {@code OutboxSchema.migrate(dataSource,
     * OutboxTables.of(schema, "bill_"))}. Checked at {@link #build()} with {@link
     * OutboxTables#of(String, String)}. The relay's {@link OutboxRelay#admin() admin}, its backlog
     * gauges, its ordering index check and its NOTIFY channel follow it, and so does a writer built
     * with {@link Outbox.Builder#relay(OutboxRelay)}. Defaults to none.
     *
     * @throws NullPointerException if {@code tablePrefix} is null
     */
    public Builder tablePrefix(String tablePrefix) {
      this.tablePrefix = Objects.requireNonNull(tablePrefix, "tablePrefix");
      return this;
    }

    /**
     * The schema and the table prefix at once; the same as {@code
     * schema(tables.schema()).tablePrefix(tables.tablePrefix())}.
     *
     * @throws NullPointerException if {@code tables} is null
     */
    public Builder tables(OutboxTables tables) {
      Objects.requireNonNull(tables, "tables");
      return schema(tables.schema()).tablePrefix(tables.tablePrefix());
    }

    /** Batch size, workers, polling, retries. Defaults to {@link RelayConfig#defaults()}. */
    public Builder config(RelayConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** The clock deciding when events are due. Defaults to the system clock in UTC. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** Adds a listener, for metrics or tracing. */
    public Builder listener(RelayListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
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
     * Registers the relay's meters as {@code metrics} says: at {@link #build()}, tagged {@code
     * relay=}{@link RelayConfig#name()}, the backlog gauges reading this relay's {@link
     * OutboxRelay#admin() admin}; {@link OutboxRelay#close()} removes them. Defaults to none.
     *
     * @throws NullPointerException if {@code metrics} is null
     */
    public Builder metrics(OutboxMetrics metrics) {
      this.metrics = Objects.requireNonNull(metrics, "metrics");
      return this;
    }

    /**
     * Also wakes the relay on PostgreSQL notifications from the opt-in trigger ({@link
     * OutboxSchema#migrateNotifyTrigger}), for writers in other processes: one connection of the
     * {@link #dataSource} stays open, LISTENing on {@link OutboxSchema#notifyChannel}. After a lost
     * connection it reconnects with backoff; polling goes on meanwhile, so nothing waits longer
     * than {@code maxPollInterval}. Needs the PostgreSQL JDBC driver. Defaults to false.
     */
    public Builder listenForNotifications(boolean listen) {
      this.listen = listen;
      this.listenDataSource = null;
      return this;
    }

    /**
     * As {@link #listenForNotifications(boolean) listenForNotifications(true)}, LISTENing on a
     * connection of {@code listener} instead of the relay's own data source: for a relay whose
     * connections go through a pooler in transaction mode (PgBouncer), which cannot carry a LISTEN,
     * give a session-mode or direct data source here (see docs/postgres-connections.md).
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder listenForNotifications(DataSource listener) {
      this.listen = true;
      this.listenDataSource = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Traces each publish: one span per event and attempt, through {@code tracer} (such as {@link
     * dev.txoutbox.tracing.OpenTelemetryPublishTracer}). Defaults to {@link PublishTracer#none()},
     * which costs nothing.
     *
     * @throws NullPointerException if {@code tracer} is null
     */
    public Builder publishTracer(PublishTracer tracer) {
      this.tracer = Objects.requireNonNull(tracer, "tracer");
      return this;
    }

    /**
     * Makes every thread the relay starts: its workers, its heartbeat's, its notification
     * listener's and its meters' refresh thread, each as the factory makes it (its names, its
     * daemon flag, its kind of thread, such as a virtual thread or one of a container's managed
     * threads). Defaults to none: the relay makes daemon threads named {@code
     * outbox-relay-<name>-<role>} ({@code worker-1}, {@code heartbeat}, {@code listener}, {@code
     * metrics}). The shutdown hook of {@link OutboxRelay#closeOnShutdown()} is never the factory's.
     *
     * @throws NullPointerException if {@code threadFactory} is null
     */
    public Builder threadFactory(ThreadFactory threadFactory) {
      this.threadFactory = Objects.requireNonNull(threadFactory, "threadFactory");
      return this;
    }

    /**
     * Checks the pieces, then registers the meters if {@link #metrics(OutboxMetrics)} was given.
     * Starts nothing but the backlog gauges' refresh thread; call {@link OutboxRelay#start()}.
     *
     * @throws IllegalStateException if neither a data source nor a DSL context, or both, or no
     *     publisher was given, or notifications are asked for without a data source, or the meter
     *     registry already holds the meters of a relay with this {@link RelayConfig#name()}
     * @throws IllegalArgumentException if the schema or the table prefix is not valid ({@link
     *     OutboxTables#of(String, String)})
     */
    public OutboxRelay build() {
      OutboxTables tables = OutboxTables.of(schema, tablePrefix);
      DSLContext mapped =
          OutboxDatabase.mapped(
              "the relay", dataSource, dsl, tables, settings -> settings.withInListPadding(true));
      if (publisher == null) {
        throw new IllegalStateException("the relay must be given a publisher(...) but was not");
      }
      if (listen && dataSource == null && listenDataSource == null) {
        throw new IllegalStateException(
            "listenForNotifications(true) must be given dataSource(...) but was given dsl(...)");
      }
      OutboxAdmin admin =
          new DefaultOutboxAdmin(
              OutboxDatabase.mapped("the relay", dataSource, dsl, tables, settings -> settings),
              tables,
              clock);
      List<RelayListener> all = new ArrayList<>(listeners);
      Runnable closeWithRelay = () -> {};
      RelayThreads threads = RelayThreads.forRelay(config.name(), threadFactory);
      if (metrics != null) {
        RelayMeters meters = RelayMeters.register(metrics, config.name(), admin, threads);
        all.add(0, meters); // told first: an application listener's failure never skips them
        closeWithRelay = meters::close;
      }
      return new DefaultOutboxRelay(
          new RelayParts(
              mapped,
              tables,
              admin,
              publisher,
              config,
              clock,
              all,
              closeWithRelay,
              metrics == null ? "off" : metrics.toString(),
              listen ? (listenDataSource != null ? listenDataSource : dataSource) : null,
              tracer,
              threads));
    }
  }
}
