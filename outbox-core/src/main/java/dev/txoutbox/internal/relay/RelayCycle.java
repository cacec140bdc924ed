package dev.txoutbox.internal.relay;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.relay.BatchOutcome.Fate;
import dev.txoutbox.internal.relay.RelayStore.Failure;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.SecretMasking;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One claim-publish-complete cycle in one transaction, then the reports about it. Thread-safe: each
 * worker runs cycles concurrently on the same instance.
 */
final class RelayCycle {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /**
   * Retries logged one by one at WARN per batch; the rest go to DEBUG behind one WARN summary, so a
   * broker outage does not flood the log with a line per event.
   */
  static final int MAX_RETRY_WARNINGS_PER_BATCH = 10;

  private final DSLContext dsl;
  private final Publisher publisher;
  private final RelayConfig config;
  private final Clock clock;
  private final RelayListener listener;
  private final @Nullable OrderedClaim ordered;
  private final BatchStatements statements = new BatchStatements();

  RelayCycle(
      DSLContext dsl,
      Publisher publisher,
      RelayConfig config,
      Clock clock,
      RelayListener listener) {
    this.dsl = dsl;
    this.publisher = publisher;
    this.config = config;
    this.clock = clock;
    this.listener = listener;
    this.ordered =
        switch (config.ordering()) {
          case NONE -> null;
          case PER_AGGREGATE, PER_AGGREGATE_SKIP_DEAD_LETTERS ->
              new OrderedClaim(config.ordering());
        };
  }

  /** Thrown through jOOQ's transaction to roll it back when publishing was interrupted. */
  private static final class Interrupted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Interrupted(InterruptedException cause) {
      super(cause);
    }
  }

  /** Thrown through jOOQ's transaction when the claimed rows could not be read. */
  private static final class UnreadableBatch extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnreadableBatch(RuntimeException cause) {
      super(cause);
    }
  }

  /**
   * What a cycle did, for the worker loop.
   *
   * @param claimed events claimed
   * @param publishedIds the events the broker acknowledged, in batch order
   * @param retried events whose attempt failed and that will be retried after their backoff
   * @param deadLettered events that became dead letters (including rows that could not be read)
   * @param unavailable events not sent because the broker was unavailable; they stay as they were
   * @param unavailableReason the reason when the broker was unavailable to every message of the
   *     batch, else null
   * @param answered whether the broker answered at least one message (with any outcome but
   *     unavailable)
   * @param full whether the claim used up its budget, so more events may be waiting
   */
  record Result(
      int claimed,
      List<UUID> publishedIds,
      int retried,
      int deadLettered,
      int unavailable,
      @Nullable String unavailableReason,
      boolean answered,
      boolean full) {}

  /** A cycle's outcome and whether its claim was full. */
  private record Cycle(BatchOutcome outcome, boolean full) {}

  /**
   * Runs one cycle of at most {@code limit} events. When the claimed rows cannot be read because of
   * a row's data (a row another tool wrote with headers we cannot decode, a payload the server
   * cannot render), the cycle is rolled back and run again reading the rows one by one: each
   * unreadable row becomes a dead letter with the error, and the others are published. Any other
   * failure of the database ({@link FailureSource}: a statement timeout, a cancel, a serialization
   * failure, a lost connection) is thrown: the transaction was rolled back and no row was touched.
   *
   * @throws InterruptedException if interrupted while publishing; the transaction was rolled back
   *     and the interrupt flag is cleared
   */
  Result run(int limit) throws InterruptedException {
    long started = System.nanoTime();
    Cycle cycle;
    try {
      try {
        cycle = dsl.transactionResult(c -> claimPublishComplete(c.dsl(), limit, false));
      } catch (UnreadableBatch e) {
        log.warn(
            "relay {}: could not read a claimed batch; reading its rows one by one: {}",
            config.name(),
            String.valueOf(e.getCause()));
        cycle = dsl.transactionResult(c -> claimPublishComplete(c.dsl(), limit, true));
      }
    } catch (Interrupted e) {
      throw (InterruptedException) e.getCause();
    }
    BatchOutcome outcome = cycle.outcome();
    if (outcome.claimed() > 0) {
      report(outcome, Duration.ofNanos(System.nanoTime() - started));
    }
    return new Result(
        outcome.claimed(),
        outcome.publishedIds(),
        outcome.retried(),
        outcome.deadLettered(),
        outcome.unavailableIds().size(),
        outcome.claimed() == 0 || outcome.answered() ? null : outcome.unavailableReason(),
        outcome.answered(),
        cycle.full());
  }

  private Cycle claimPublishComplete(DSLContext tx, int limit, boolean rowByRow) {
    OffsetDateTime now = OffsetDateTime.now(clock);
    List<OutboxMessage> batch;
    List<Failure> unreadable = List.of();
    boolean full;
    if (rowByRow) {
      batch = new ArrayList<>();
      unreadable = new ArrayList<>();
      Claimed<ClaimedRow> rows =
          ordered == null
              ? RelayStore.claimRows(tx, limit, now)
              : ordered.claimRows(tx, limit, now);
      full = rows.full();
      readOneByOne(tx, rows.events(), now, batch, unreadable);
    } else {
      try {
        Claimed<OutboxMessage> claimed =
            ordered == null ? statements.claim(tx, limit, now) : ordered.claim(tx, limit, now);
        batch = claimed.events();
        full = claimed.full();
      } catch (RuntimeException e) {
        if (!FailureSource.isUnreadableRow(e)) {
          throw e; // the database failed the claim, not a row: the cycle fails and rolls back
        }
        throw new UnreadableBatch(e);
      }
    }
    if (batch.isEmpty()) {
      RelayStore.fail(tx, unreadable);
      return new Cycle(
          unreadable.isEmpty() ? BatchOutcome.EMPTY : BatchOutcome.unreadable(unreadable), full);
    }
    List<PublishResult> results = publish(batch);
    // The outcome is known now, not when the batch was claimed: a publish may block for minutes.
    OffsetDateTime answeredAt = OffsetDateTime.now(clock);
    BatchOutcome outcome =
        BatchOutcome.of(batch, results, config, answeredAt, ThreadLocalRandom.current())
            .withUnreadable(unreadable);
    if (ordered == null) {
      statements.pinPlansById(tx); // the ordered claim pinned them already
    }
    statements.complete(tx, outcome.publishedIds(), config.completionMode(), answeredAt);
    if (outcome.answered()) {
      // The broker took some of the batch: put the others back a little later, at no attempt.
      RelayStore.defer(
          tx,
          outcome.unavailableIds(),
          answeredAt.plus(config.brokerProbeBackoff().initialDelay()));
    }
    recordFailures(tx, outcome.failures());
    return new Cycle(outcome, full);
  }

  /**
   * Reads claimed rows one by one: each unreadable row becomes a dead letter with the error, and
   * the later rows of its aggregate are left as they are, not attempted.
   *
   * @throws RuntimeException if reading a row failed for another reason than its data ({@link
   *     FailureSource}): the cycle must fail and roll back
   */
  private void readOneByOne(
      DSLContext tx,
      List<ClaimedRow> rows,
      OffsetDateTime now,
      List<OutboxMessage> batch,
      List<Failure> unreadable) {
    Set<AggregateKey> stopped = new HashSet<>();
    for (ClaimedRow row : rows) {
      UUID id = row.id();
      if (stopped.contains(row.aggregate())) {
        continue;
      }
      try {
        batch.add(tx.transactionResult(c -> RelayStore.read(c.dsl(), id)));
      } catch (RuntimeException e) {
        if (!FailureSource.isUnreadableRow(e)) {
          throw e; // not the row's fault: the cycle fails and rolls back, no row is touched
        }
        log.atError()
            .addKeyValue("relay", config.name())
            .addKeyValue("event_id", id)
            .setCause(e)
            .log("event {} cannot be read and is a dead letter: {}", id, safe(e.toString()));
        unreadable.add(new Failure(id, null, ErrorText.sanitize("unreadable row: " + e), now));
        stopped.add(row.aggregate());
      }
    }
  }

  /**
   * Records the failures inside a savepoint: should the statement fail, the acknowledged events of
   * the batch must still be completed, so the failures are recorded again with a plain reason.
   */
  private void recordFailures(DSLContext tx, List<Failure> failures) {
    if (failures.isEmpty()) {
      return;
    }
    try {
      tx.transaction(c -> RelayStore.fail(c.dsl(), failures));
    } catch (RuntimeException e) {
      log.warn(
          "relay {}: could not record {} failures; recording them with a plain reason: {}",
          config.name(),
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

  /** Calls the publisher; whatever goes wrong becomes retryable failures, never a lost result. */
  private List<PublishResult> publish(List<OutboxMessage> batch) {
    List<PublishResult> results;
    try {
      results = publisher.publish(Collections.unmodifiableList(batch));
    } catch (InterruptedException e) {
      // Thrown means cleared, whatever the publisher did: the rollback and the caller see one
      // convention.
      Thread.interrupted();
      throw new Interrupted(e);
    } catch (RuntimeException e) {
      log.warn(
          "publisher {} threw for a batch of {}; retrying all", publisher.name(), batch.size(), e);
      return PublisherAnswer.all(batch.size(), PublishResult.retryable("publisher threw", e));
    }
    PublisherAnswer answer = PublisherAnswer.of(publisher.name(), batch.size(), results);
    if (answer.problem() != null) {
      log.warn("relay {}: {}; retrying all", config.name(), answer.problem());
    }
    return answer.results();
  }

  private void report(BatchOutcome outcome, Duration duration) {
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
                safe(m.eventType()),
                safe(m.aggregateId()));
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
                  safe(m.eventType()),
                  safe(fate.result().reason()));
        }
      } else if (delay == null) { // attempted, failed and not retried: a dead letter
        withEvent(log.atError(), m)
            .setCause(fate.result().cause())
            .log(
                "event {} ({}) is a dead letter after attempt {}: {}",
                m.id(),
                safe(m.eventType()),
                m.attempt(),
                safe(fate.result().reason()));
        listener.deadLettered(m, fate.result());
      } else {
        retries++;
        withEvent(retries <= MAX_RETRY_WARNINGS_PER_BATCH ? log.atWarn() : log.atDebug(), m)
            .log(
                "event {} ({}) attempt {} failed, retrying in {}: {}",
                m.id(),
                safe(m.eventType()),
                m.attempt(),
                DurationText.of(delay),
                safe(fate.result().reason()));
        listener.willRetry(m, fate.result(), delay);
      }
    }
    if (retries > MAX_RETRY_WARNINGS_PER_BATCH) {
      log.warn(
          "relay {}: {} more events of this batch failed and will be retried (each logged at"
              + " DEBUG)",
          config.name(),
          retries - MAX_RETRY_WARNINGS_PER_BATCH);
    }
    int failed = outcome.claimed() - published - unavailable - notAttempted;
    log.debug(
        "relay {}: batch of {} in {} ms: {} published, {} failed, {} not sent (broker"
            + " unavailable), {} not attempted (after a failure in their aggregate's run)",
        config.name(),
        outcome.claimed(),
        duration.toMillis(),
        published,
        failed,
        unavailable,
        notAttempted);
    listener.batchCompleted(outcome.claimed(), published, failed, duration);
  }

  private LoggingEventBuilder withEvent(LoggingEventBuilder b, OutboxMessage m) {
    return b.addKeyValue("relay", config.name())
        .addKeyValue("event_id", m.id())
        .addKeyValue("event_type", safe(m.eventType()))
        .addKeyValue("aggregate_id", safe(m.aggregateId()))
        .addKeyValue("attempt", m.attempt());
  }

  /**
   * Text from the database or a broker, fit for a log line: credentials masked, control characters
   * escaped so that it can neither split the line nor drive a terminal.
   */
  static String safe(@Nullable String text) {
    // Both keep text that is not null non-null; null is logged as SLF4J writes it.
    return String.valueOf(Printable.of(SecretMasking.maskText(text)));
  }
}
