package dev.txoutbox.internal.kernel;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.Backoff;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.PublishTracer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.heartbeat.RelayHeartbeat;
import dev.txoutbox.internal.metrics.RelayMeters;
import dev.txoutbox.internal.relay.BrokerCircuit;
import dev.txoutbox.internal.relay.ErrorText;
import dev.txoutbox.internal.relay.PublishStep;
import dev.txoutbox.internal.relay.RelayStore;
import dev.txoutbox.internal.relay.RelayThreads;
import dev.txoutbox.internal.relay.RenderedOnce;
import dev.txoutbox.internal.relay.TableVacuum;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record;
import org.jooq.ResultQuery;
import org.jspecify.annotations.Nullable;

/**
 * What the WAL relay (outbox-wal) shares with the polling relay, in one type: the relay kernel
 * (publisher contract, fates, one statement per outcome, reports after commit), the one tracker of
 * a broker outage and the words of a database outage, the heartbeat row, the outbox meters, and the
 * polling relay's checks and pieces of statements the WAL relay's statements are made of. Each
 * relay keeps only what is its own; the WAL relay its stream, its lock of pending rows, its slot
 * confirmation and its "hold the slot during an outage" policy.
 *
 * <p>Public for outbox-wal only: this package is core's one qualified export, so the WAL relay
 * reaches nothing else of core's internals. An instance is one WAL relay's kernel; thread-safe,
 * batches are published concurrently through it.
 */
public final class RelayKernel {

  /** The statements of a relay's own for the outcomes the kernel does not write itself. */
  public interface Rows {
    /** Marks or deletes the published events {@code ids}, acknowledged at {@code answeredAt}. */
    void complete(DSLContext tx, List<UUID> ids, OffsetDateTime answeredAt);

    /**
     * Leaves pending at no attempt the events not attempted because an earlier event of their
     * aggregate in the batch was not published; {@code behind} gives them by the time that earlier
     * event is due again.
     */
    void release(DSLContext tx, Map<OffsetDateTime, List<UUID>> behind);
  }

  /** A batch the publisher answered, with every event's fate. Immutable. */
  public static final class Answer {
    private final PublishStep.Answer answer;

    private Answer(PublishStep.Answer answer) {
      this.answer = answer;
    }

    // What the WAL relay reads of it: whether the broker answered (any outcome but unavailable);
    // if not, why; and how many events it acknowledged.

    public boolean answered() {
      return answer.answered();
    }

    public @Nullable String unavailableReason() {
      return answer.unavailableReason();
    }

    public int published() {
      return answer.published();
    }
  }

  /**
   * A statement jOOQ renders once and the relay runs many times with other values ({@code
   * RenderedOnce}). Immutable and thread-safe.
   */
  public static final class Statement {
    private final RenderedOnce rendered;

    /**
     * @param sentinels values that occur in {@code statement} only where a run's values go
     * @throws IllegalArgumentException if a sentinel does not occur in the statement
     */
    public Statement(DSLContext dsl, ResultQuery<Record> statement, List<Object> sentinels) {
      this.rendered = new RenderedOnce(dsl, statement, sentinels);
    }

    /**
     * A statement without a result.
     *
     * @throws IllegalArgumentException if a sentinel does not occur in the statement
     */
    public Statement(DSLContext dsl, Query statement, List<Object> sentinels) {
      this.rendered = new RenderedOnce(dsl, statement, sentinels);
    }

    /** The statement on {@code connection} with {@code values} where the sentinels were. */
    public PreparedStatement prepare(Connection connection, List<?> values) throws SQLException {
      return rendered.prepare(connection, values);
    }
  }

  /**
   * The outbox meters every relay has ({@link OutboxMetrics}). Only this class loads Micrometer: a
   * relay without metrics never touches it. Thread-safe.
   */
  public static final class Meters implements AutoCloseable {
    private final RelayMeters meters;

    private Meters(RelayMeters meters) {
      this.meters = meters;
    }

    /**
     * Registers the outbox meters of relay {@code name} as {@code settings} says, the backlog read
     * through {@code admin}.
     *
     * @throws IllegalStateException if the registry already holds them for this name
     */
    public static Meters register(
        OutboxMetrics settings, String name, OutboxAdmin admin, Threads threads) {
      return new Meters(RelayMeters.register(settings, name, admin, threads.relay));
    }

    /** Where the relay tells its outcomes, for the meters; told before any other listener. */
    public RelayListener listener() {
      return meters;
    }

    /** Removes the meters. Idempotent. */
    @Override
    public void close() {
      meters.close();
    }
  }

  /**
   * The WAL relay's threads, through core's one place that makes the library's threads: its own
   * named {@code outbox-wal-<relay>-<role>}, and those it shares with the polling relay (heartbeat,
   * outbox meters) named as the polling relay's, {@code outbox-relay-<relay>-<role>}; all made by
   * the user's factory when one was given. Thread-safe.
   */
  public static final class Threads {
    private final RelayThreads wal;
    private final RelayThreads relay;
    private final @Nullable ThreadFactory factory;

    private Threads(String relayName, @Nullable ThreadFactory factory) {
      this.wal = RelayThreads.of("wal-" + relayName, factory);
      this.relay = RelayThreads.forRelay(relayName, factory);
      this.factory = factory;
    }

    /** The threads of WAL relay {@code relayName}, made by {@code factory} when not null. */
    public static Threads of(String relayName, @Nullable ThreadFactory factory) {
      return new Threads(relayName, factory);
    }

    /** A new thread of the WAL relay doing {@code role}, not started. */
    public Thread newThread(String role, Runnable task) {
      return wal.newThread(role, task);
    }

    /** A factory for an executor's threads doing {@code role}. */
    public ThreadFactory factory(String role) {
      return wal.factory(role);
    }

    /** The user's factory, for the sweeper's polling relay; null for the library's own. */
    public @Nullable ThreadFactory userFactory() {
      return factory;
    }
  }

  private final PublishStep step;
  private final BrokerCircuit circuit;
  private final Threads threads;
  private final String name;
  private volatile @Nullable RelayHeartbeat heartbeat;
  private final @Nullable Duration vacuumInterval;
  private volatile @Nullable TableVacuum vacuum;

  /**
   * The WAL relay's kernel: events failed by the publisher are retried by the polling relay behind
   * it; the database's outage is told per stream, which reopens after {@code reconnect}'s delays.
   *
   * @param logger the relay's logger name
   * @param meters the relay's meters ({@link Meters#listener()}), told first, or null
   * @param listeners the application's listeners, each isolated from the others
   * @param tracer traces each publish, {@link PublishTracer#none()} when off
   * @param threads makes the heartbeat's thread
   */
  public RelayKernel(
      String logger,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      @Nullable RelayListener meters,
      List<RelayListener> listeners,
      Backoff reconnect,
      PublishTracer tracer,
      Threads threads) {
    List<RelayListener> all = new ArrayList<>(listeners);
    all.add( // last: tells the heartbeat of each completed batch
        new RelayListener() {
          @Override
          public void batchCompleted(int claimed, int published, int failed, Duration duration) {
            RelayHeartbeat beat = heartbeat;
            if (beat != null) {
              beat.cycleCompleted();
            }
          }
        });
    this.step = PublishStep.wal(logger, publisher, config, clock, meters, all, reconnect, tracer);
    this.circuit =
        BrokerCircuit.wal(logger, config.name(), config.brokerProbeBackoff(), step.listener());
    this.name = config.name();
    this.threads = threads;
    this.vacuumInterval = config.vacuumInterval();
  }

  /** The listener wrapper: meters first, each application listener's exception isolated. */
  public RelayListener listener() {
    return step.listener();
  }

  /**
   * Calls the publisher with {@code batch} (each aggregate's events in {@code seq} order) and
   * decides each event's fate. Call inside the transaction that claimed the batch.
   *
   * @throws InterruptedException if the publisher was interrupted; the interrupt flag is cleared
   *     and the caller must roll back
   * @throws Error whatever {@link Error} the publisher threw: the caller's transaction rolls back
   *     and no attempt is counted
   */
  public Answer publish(List<OutboxMessage> batch) throws InterruptedException {
    return new Answer(step.publish(batch));
  }

  /**
   * Records {@code answer} in the caller's transaction: the published events and the events not
   * attempted through {@code rows}, the failures in one statement, the events the broker was
   * unavailable to (when it answered others) postponed at no attempt.
   */
  public void record(DSLContext tx, Answer answer, Rows rows) {
    step.record(
        tx,
        answer.answer,
        new PublishStep.Rows() {
          @Override
          public void complete(DSLContext c, List<UUID> ids, OffsetDateTime answeredAt) {
            rows.complete(c, ids, answeredAt);
          }

          @Override
          public void release(DSLContext c, Map<OffsetDateTime, List<UUID>> behind) {
            rows.release(c, behind);
          }
        });
  }

  /** Tells the listeners and the log what became of {@code answer}'s events, after commit. */
  public void report(Answer answer, Duration duration) {
    step.report(answer.answer, duration);
  }

  /** Now on the broker outage tracker's clock, for when a publish began. */
  public long now() {
    return circuit.now();
  }

  /**
   * The broker was unavailable to every event of a batch whose publish began at {@code began}
   * ({@link #now()}); the relay holds the slot and publishes it again. The first such news of an
   * outage is one WARN and the listeners' {@code brokerUnavailable}; a summary WARN follows at most
   * every 30 s while it lasts.
   */
  public void brokerUnavailable(String reason, long began) {
    circuit.report(reason, false, began);
    circuit.probed();
  }

  /**
   * The broker answered a batch whose publish began at {@code began}: an outage that began before
   * is over (one INFO and the listeners' {@code brokerAvailable}).
   */
  public void brokerAnswered(long began) {
    circuit.report(null, true, began);
  }

  /**
   * A run of the relay's loop (a stream) failed with {@code failure} and is retried after {@code
   * delay}: the listeners' {@code cycleFailed}, and the log as the polling relay's words for its
   * cycles: a database outage once as it begins, a failure of code at WARN.
   */
  public void runFailed(Throwable failure, Duration delay, String what) {
    step.runFailed(failure, delay, what);
  }

  /** A run of the relay's loop worked: an outage of the database, if there was one, is over. */
  public void runSucceeded() {
    step.runSucceeded();
  }

  /**
   * Starts writing the relay's heartbeat row ({@code kind = wal}) every few seconds from a thread
   * of its own, each completed batch noted; {@code settings} summarises its configuration.
   */
  public void startHeartbeat(DSLContext dsl, OutboxTables tables, String settings) {
    heartbeat =
        RelayHeartbeat.start(dsl, tables, name, RelayHeartbeat.Kind.WAL, settings, threads.relay);
  }

  /** Stops the heartbeat, if started, with a last beat that stamps the stop. Idempotent. */
  public void stopHeartbeat() {
    RelayHeartbeat beat = heartbeat;
    if (beat != null) {
      beat.close(); // waits 2 s at most
    }
  }

  /**
   * Starts the events table's plain {@code VACUUM} every {@code RelayConfig.vacuumInterval()} from
   * a thread of its own ({@code -vacuum}), as the polling relay runs it, if the configuration sets
   * one; {@code dsl} maps the table as the relay's statements do.
   */
  public void startVacuum(DSLContext dsl) {
    Duration interval = vacuumInterval;
    if (interval != null) {
      TableVacuum v =
          new TableVacuum(dsl, dsl.render(OUTBOX_EVENTS), name, interval, threads.relay);
      vacuum = v;
      v.start();
    }
  }

  /** Stops the vacuum runs, if started; a run in progress finishes on its own. Idempotent. */
  public void stopVacuum() {
    TableVacuum v = vacuum;
    if (v != null) {
      v.close();
    }
  }

  // The polling relay's checks and pieces of statements, for the WAL relay's own.

  /** Longest stored {@code last_error}, in characters. */
  public static final int MAX_ERROR_LENGTH = ErrorText.MAX_LENGTH;

  /** {@code text} made safe to store as {@code last_error}, as the polling relay stores it. */
  public static String errorText(@Nullable String text) {
    return ErrorText.sanitize(text);
  }

  /**
   * Checks that the indexes the per-aggregate orderings walk exist and are valid.
   *
   * @throws IllegalStateException naming the missing index and how to install it
   */
  public static void requireOrderingIndexes(
      DSLContext dsl, dev.txoutbox.Ordering ordering, OutboxTables tables) {
    RelayStore.requireOrderingIndexes(dsl, ordering, tables);
  }

  /** The planner settings the ordered claim turns off, for the WAL relay's ordering check. */
  public static List<String> planSettings() {
    return RelayStore.planSettings();
  }

  /** {@code set_config('enable_seqscan', 'off', true)}, as a field. */
  public static Field<String> seqScansOff() {
    return RelayStore.seqScansOff();
  }

  /** {@code set_config(name, value, true)}, as a field. */
  public static Field<String> setLocal(String name, String value) {
    return RelayStore.setLocal(name, value);
  }

  /** {@code ids} as one {@code uuid[]} bind value. */
  public static Field<UUID[]> uuids(UUID[] ids) {
    return RelayStore.uuids(ids);
  }

  /** The columns a publisher's message is made of. */
  public static List<Field<?>> messageColumns() {
    return RelayStore.MESSAGE_COLUMNS;
  }

  /** The message in {@code r}, a record that selects just the {@link #messageColumns()}. */
  public static OutboxMessage toMessage(Record r) {
    return RelayStore.toMessage(r);
  }

  /** The headers in their JSON text, as the polling relay reads them. */
  public static Map<String, String> headers(String json) {
    return RelayStore.headers(json);
  }
}
