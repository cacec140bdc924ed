package dev.txoutbox.internal.relay;

import dev.txoutbox.Backoff;
import dev.txoutbox.PublishTracer;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.relay.BatchOutcome.Fate;
import dev.txoutbox.internal.relay.RelayStore.Failure;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The relay kernel: what happens to a batch once a relay has claimed it, the same for the polling
 * relay and the WAL relay. {@link #publish} calls the publisher and holds its answer to the {@code
 * Publisher} contract (a {@link RuntimeException}, a list of the wrong size or none: a retryable
 * failure of every message; a null entry: of its message; an {@link Error} propagates, so the
 * caller's transaction rolls back at no attempt) and decides each event's fate; {@link #record}
 * writes the fates in the caller's transaction, one statement per kind of outcome; {@link #report}
 * tells the listeners (meters first, an application listener's exception isolated) and the log
 * (per-event lines with key-values, retry warnings capped per batch) once the transaction has
 * committed. It also words the broker's outages (for {@link BrokerCircuit}, the one tracker of
 * them) and the database's for both relays.
 *
 * <p>Public for outbox-wal's facade ({@code internal.kernel.RelayKernel}). Thread-safe: batches are
 * published concurrently through one instance.
 */
public final class PublishStep {

  /**
   * Retries logged one by one at WARN per batch; the rest go to DEBUG behind one WARN summary, so a
   * broker outage does not flood the log with a line per event.
   */
  public static final int MAX_RETRY_WARNINGS_PER_BATCH = 10;

  /** The statements of a relay's own for the outcomes the kernel does not write itself. */
  public interface Rows {
    /** Marks or deletes the published events {@code ids}, acknowledged at {@code answeredAt}. */
    void complete(DSLContext tx, List<UUID> ids, OffsetDateTime answeredAt);

    /**
     * Leaves the events not attempted because an earlier event of their aggregate in the batch was
     * not published pending at no attempt; {@code behind} gives them by the time that earlier event
     * is due again (its retry, the broker probe's delay, or the answer's time behind a dead
     * letter). Nothing to do for a claim that does not mark rows: the polling relay's rows stay as
     * they were.
     */
    default void release(DSLContext tx, Map<OffsetDateTime, List<UUID>> behind) {}
  }

  /** A batch the publisher answered, with every event's fate. Immutable. */
  public static final class Answer {
    final BatchOutcome outcome;
    final OffsetDateTime answeredAt;

    Answer(BatchOutcome outcome, OffsetDateTime answeredAt) {
      this.outcome = outcome;
      this.answeredAt = answeredAt;
    }

    /** Whether the broker answered any message, with any outcome but unavailable. */
    public boolean answered() {
      return outcome.answered();
    }

    /** Why the broker was unavailable to the batch: the first such reason, or null. */
    public @Nullable String unavailableReason() {
      return outcome.unavailableReason();
    }

    /** Events the broker acknowledged. */
    public int published() {
      return outcome.publishedIds().size();
    }
  }

  private final Logger log;
  private final String relay;
  private final Publisher publisher;
  private final RelayConfig config;
  private final Clock clock;
  private final RelayListener listener;
  private final String retryWords;
  private final DatabaseOutage database;
  private final @Nullable PublishTracer tracer; // null when off: nothing is called per batch
  private volatile boolean tracerFailed;

  private PublishStep(
      Logger log,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      RelayListener listener,
      String retryWords,
      DatabaseOutage database,
      PublishTracer tracer) {
    this.log = log;
    this.tracer = tracer == PublishTracer.none() ? null : tracer;
    this.relay = config.name();
    this.publisher = publisher;
    this.config = config;
    this.clock = clock;
    this.listener = listener;
    this.retryWords = retryWords;
    this.database = database;
  }

  /** The polling relay's kernel, logging to {@code dev.txoutbox.relay}. */
  static PublishStep polling(
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      RelayListener listener,
      PublishTracer tracer) {
    Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");
    return new PublishStep(
        log,
        publisher,
        config,
        clock,
        listener,
        "retrying in",
        new DatabaseOutage(
            log, config.name(), "cycles", DefaultOutboxRelay.ERROR_BACKOFF, System::nanoTime),
        tracer);
  }

  /**
   * The WAL relay's kernel: events failed by the publisher are retried by the polling relay behind
   * it; the database's outage is told per stream, which reopens after {@code reconnect}'s delays.
   *
   * @param logger the relay's logger name
   * @param meters the relay's meters, told first, or null
   * @param listeners the application's listeners, each isolated from the others
   * @param tracer traces each publish, {@link PublishTracer#none()} when off
   */
  public static PublishStep wal(
      String logger,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      @Nullable RelayListener meters,
      List<RelayListener> listeners,
      Backoff reconnect,
      PublishTracer tracer) {
    Logger log = LoggerFactory.getLogger(logger);
    List<RelayListener> all = new ArrayList<>();
    if (meters != null) {
      all.add(meters);
    }
    all.addAll(listeners);
    return new PublishStep(
        log,
        publisher,
        config,
        clock,
        new SafeListener(all),
        "the polling relay retries it after",
        new DatabaseOutage(log, config.name(), "streams", reconnect, System::nanoTime),
        tracer);
  }

  /** The listener wrapper: meters first, each application listener's exception isolated. */
  public RelayListener listener() {
    return listener;
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
    PublishTracer.@Nullable Attempt attempt = tracer == null ? null : begin(batch);
    // Sent with the send spans' trace context in their headers; recorded from the claimed rows.
    List<OutboxMessage> send = attempt == null ? batch : attempt.messages();
    List<PublishResult> results;
    try {
      results = publisher.publish(Collections.unmodifiableList(send));
    } catch (InterruptedException e) {
      // Thrown means cleared, whatever the publisher did: one convention for every caller.
      Thread.interrupted();
      traceFailed(attempt, e);
      throw e;
    } catch (RuntimeException e) {
      traceFailed(attempt, e);
      log.warn(
          "publisher {} threw for a batch of {}; retrying all", publisher.name(), batch.size(), e);
      results = PublisherAnswer.all(batch.size(), PublishResult.retryable("publisher threw", e));
      return decide(batch, results);
    } catch (Error e) {
      traceFailed(attempt, e);
      throw e;
    }
    if (attempt != null) {
      try {
        attempt.end(results);
      } catch (RuntimeException e) {
        tracerFailed(e);
      }
    }
    PublisherAnswer answer = PublisherAnswer.of(publisher.name(), batch.size(), results);
    if (answer.problem() != null) {
      log.warn("relay {}: {}; retrying all", relay, answer.problem());
    }
    return decide(batch, answer.results());
  }

  /** Begins tracing {@code batch}; null, and the batch published untraced, if the tracer threw. */
  private PublishTracer.@Nullable Attempt begin(List<OutboxMessage> batch) {
    try {
      return java.util.Objects.requireNonNull(tracer).begin(relay, publisher, batch);
    } catch (RuntimeException e) {
      tracerFailed(e);
      return null;
    }
  }

  private void traceFailed(PublishTracer.@Nullable Attempt attempt, Throwable error) {
    if (attempt != null) {
      try {
        attempt.failed(error);
      } catch (RuntimeException e) {
        tracerFailed(e);
      }
    }
  }

  /** A tracer's failure never fails a publish: said once per relay, then at DEBUG. */
  private void tracerFailed(RuntimeException e) {
    if (tracerFailed) {
      log.debug("relay {}: the publish tracer failed again", relay, e);
      return;
    }
    tracerFailed = true;
    log.warn("relay {}: the publish tracer failed; publishing goes on untraced", relay, e);
  }

  private Answer decide(List<OutboxMessage> batch, List<PublishResult> results) {
    // The outcome is known now, not when the batch was claimed: a publish may block for minutes.
    OffsetDateTime answeredAt = OffsetDateTime.now(clock);
    return new Answer(
        BatchOutcome.of(batch, results, config, answeredAt, ThreadLocalRandom.current()),
        answeredAt);
  }

  /**
   * Records {@code answer} in the caller's transaction: the published events through {@code rows},
   * the failures in one statement, the events the broker was unavailable to (when it answered
   * others) postponed by the broker probe backoff's first delay at no attempt, and the events not
   * attempted released through {@code rows}.
   */
  public void record(DSLContext tx, Answer answer, Rows rows) {
    record(tx, answer.outcome, answer.answeredAt, rows);
  }

  /** {@link #record}, of an outcome that may hold unreadable rows too (the polling relay's). */
  void record(DSLContext tx, BatchOutcome outcome, OffsetDateTime answeredAt, Rows rows) {
    rows.complete(tx, outcome.publishedIds(), answeredAt);
    if (outcome.answered()) {
      // The broker took some of the batch: put the others back a little later, at no attempt.
      RelayStore.defer(
          tx,
          outcome.unavailableIds(),
          answeredAt.plus(config.brokerProbeBackoff().initialDelay()));
    }
    recordFailures(tx, outcome.failures());
    Map<AggregateKey, OffsetDateTime> due = new HashMap<>();
    Map<OffsetDateTime, List<UUID>> behind = new LinkedHashMap<>();
    for (Fate fate : outcome.fates()) {
      AggregateKey aggregate = AggregateKey.of(fate.message());
      if (!fate.attempted()) {
        behind
            .computeIfAbsent(due.getOrDefault(aggregate, answeredAt), t -> new ArrayList<>())
            .add(fate.message().id());
      } else if (fate.result().isBrokerUnavailable()) {
        due.put(aggregate, answeredAt.plus(config.brokerProbeBackoff().initialDelay()));
      } else if (!fate.result().isPublished()) {
        due.put(aggregate, fate.delay() == null ? answeredAt : answeredAt.plus(fate.delay()));
      }
    }
    if (!behind.isEmpty()) {
      rows.release(tx, behind);
    }
  }

  /**
   * Records the failures inside a savepoint: should the statement fail, the acknowledged events of
   * the batch must still be completed, so the failures are recorded again with a plain reason.
   */
  void recordFailures(DSLContext tx, List<Failure> failures) {
    if (failures.isEmpty()) {
      return;
    }
    try {
      tx.transaction(c -> RelayStore.fail(c.dsl(), failures));
    } catch (RuntimeException e) {
      log.warn(
          "relay {}: could not record {} failures; recording them with a plain reason: {}",
          relay,
          failures.size(),
          e.toString());
      String plain = ErrorText.sanitize("failure reason could not be stored: " + e);
      RelayStore.fail(
          tx,
          failures.stream()
              .map(f -> new Failure(f.id(), f.retryAfter(), plain, f.deadLetteredAt()))
              .toList());
    }
  }

  /** Tells the listeners and the log what became of {@code answer}'s events, after commit. */
  public void report(Answer answer, Duration duration) {
    report(answer.outcome, duration);
  }

  void report(BatchOutcome outcome, Duration duration) {
    int published = 0;
    int retries = 0;
    int unavailable = 0;
    int notAttempted = 0;
    for (Fate fate : outcome.fates()) {
      OutboxMessage m = fate.message();
      Duration delay = fate.delay(); // set for a retry only
      if (!fate.attempted()) {
        notAttempted++;
        withEvent(log.atDebug(), m)
            .log(
                "event {} ({}) not attempted: an earlier event of aggregate {} in this batch was"
                    + " not published",
                m.id(),
                RelayCycle.safe(m.eventType()),
                RelayCycle.safe(m.aggregateId()));
      } else if (fate.result().isPublished()) {
        published++;
        listener.published(m);
      } else if (fate.result().isBrokerUnavailable()) {
        unavailable++;
        // An outage fails every event of the batch: mask and escape only what is really logged.
        if (log.isDebugEnabled()) {
          withEvent(log.atDebug(), m)
              .log(
                  "event {} ({}) not sent, broker unavailable: {}",
                  m.id(),
                  RelayCycle.safe(m.eventType()),
                  RelayCycle.safe(fate.result().reason()));
        }
      } else if (delay == null) { // attempted, failed and not retried: a dead letter
        withEvent(log.atError(), m)
            .setCause(fate.result().cause())
            .log(
                "event {} ({}) is a dead letter after attempt {}: {}",
                m.id(),
                RelayCycle.safe(m.eventType()),
                m.attempt(),
                RelayCycle.safe(fate.result().reason()));
        listener.deadLettered(m, fate.result());
      } else {
        retries++;
        withEvent(retries <= MAX_RETRY_WARNINGS_PER_BATCH ? log.atWarn() : log.atDebug(), m)
            .log(
                "event {} ({}) attempt {} failed, {} {}: {}",
                m.id(),
                RelayCycle.safe(m.eventType()),
                m.attempt(),
                retryWords,
                DurationText.of(delay),
                RelayCycle.safe(fate.result().reason()));
        listener.willRetry(m, fate.result(), delay);
      }
    }
    if (retries > MAX_RETRY_WARNINGS_PER_BATCH) {
      log.warn(
          "relay {}: {} more events of this batch failed and will be retried (each logged at"
              + " DEBUG)",
          relay,
          retries - MAX_RETRY_WARNINGS_PER_BATCH);
    }
    int failed = outcome.claimed() - published - unavailable - notAttempted;
    log.debug(
        "relay {}: batch of {} in {}: {} published, {} failed, {} not sent (broker"
            + " unavailable), {} not attempted (after a failure in their aggregate's run)",
        relay,
        outcome.claimed(),
        DurationText.of(duration),
        published,
        failed,
        unavailable,
        notAttempted);
    listener.batchCompleted(outcome.claimed(), published, failed, duration);
  }

  private LoggingEventBuilder withEvent(LoggingEventBuilder b, OutboxMessage m) {
    return b.addKeyValue("relay", relay)
        .addKeyValue("event_id", m.id())
        .addKeyValue("event_type", RelayCycle.safe(m.eventType()))
        .addKeyValue("aggregate_id", RelayCycle.safe(m.aggregateId()))
        .addKeyValue("attempt", m.attempt());
  }

  // The words of a broker outage, for both relays: here and in BrokerCircuit.

  static void brokerUnavailable(
      Logger log, String relay, RelayListener listener, String reason, String policy) {
    log.warn("relay {}: broker unavailable, {}: {}", relay, policy, RelayCycle.safe(reason));
    listener.brokerUnavailable(reason);
  }

  static void brokerStillUnavailable(
      Logger log, String relay, String reason, Duration outage, String attempts) {
    log.warn(
        "relay {}: broker still unavailable after {} ({}): {}",
        relay,
        DurationText.of(outage),
        attempts,
        RelayCycle.safe(reason));
  }

  static void brokerAvailable(
      Logger log,
      String relay,
      RelayListener listener,
      Duration outage,
      String attempts,
      String resuming) {
    log.info(
        "relay {}: broker available again after {} ({}); {}",
        relay,
        DurationText.of(outage),
        attempts,
        resuming);
    listener.brokerAvailable(outage);
  }

  /**
   * A run of the relay's loop (a cycle, a stream) failed with {@code failure} and is retried after
   * {@code delay}: the listeners' {@code cycleFailed}, and the log as the source of the failure
   * deserves: a database outage is told once as it begins (then at DEBUG, and a WARN summary at
   * most every {@link BrokerCircuit#SUMMARY_INTERVAL}), a conflict with another transaction at
   * DEBUG, a failure of code at WARN with its stack trace.
   */
  public void runFailed(Throwable failure, Duration delay, String what) {
    listener.cycleFailed(failure);
    switch (FailureSource.of(failure)) {
      case DATABASE, ROW_DATA -> database.failed(failure);
      case CONFLICT ->
          log.debug(
              "relay {}: {} rolled back by a conflict with another transaction, retrying in {}: {}",
              relay,
              what,
              DurationText.of(delay),
              RelayCycle.safe(FailureSource.describe(failure)));
      case CODE ->
          log.warn(
              "relay {}: {} failed, retrying in {}: {}",
              relay,
              what,
              DurationText.of(delay),
              RelayCycle.safe(failure.toString()),
              failure);
    }
  }

  /** A run of the relay's loop worked: an outage of the database, if there was one, is over. */
  public void runSucceeded() {
    database.succeeded();
  }
}
