package dev.txoutbox.internal.relay;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.internal.relay.RelayStore.Failure;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.SecretMasking;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One claim-publish-complete cycle in one transaction, then the reports about it: the claim and the
 * transaction are the polling relay's, the rest is the kernel's ({@link PublishStep}). Thread-safe:
 * each worker runs cycles concurrently on the same instance.
 */
final class RelayCycle {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  private final DSLContext dsl;
  private final PublishStep step;
  private final RelayConfig config;
  private final Clock clock;
  private final @Nullable OrderedClaim ordered;
  private final BatchStatements statements = new BatchStatements();

  RelayCycle(DSLContext dsl, PublishStep step, RelayConfig config, Clock clock) {
    this.dsl = dsl;
    this.step = step;
    this.config = config;
    this.clock = clock;
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
      step.report(outcome, Duration.ofNanos(System.nanoTime() - started));
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
            ordered == null
                ? statements.claimAndPinPlans(tx, limit, now)
                : ordered.claim(tx, limit, now);
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
    PublishStep.Answer answer;
    try {
      answer = step.publish(batch);
    } catch (InterruptedException e) {
      throw new Interrupted(e);
    }
    BatchOutcome outcome = answer.outcome.withUnreadable(unreadable);
    if (ordered == null && rowByRow) {
      statements.pinPlansById(tx); // the batch's claim and the ordered claim pinned them already
    }
    // The claim marks nothing: a row not attempted is still as it was.
    step.record(
        tx,
        outcome,
        answer.answeredAt,
        (t, ids, at) -> statements.complete(t, ids, config.completionMode(), at));
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
   * Text from the database or a broker, fit for a log line: credentials masked, control characters
   * escaped so that it can neither split the line nor drive a terminal.
   */
  static String safe(@Nullable String text) {
    // Both keep text that is not null non-null; null is logged as SLF4J writes it.
    return String.valueOf(Printable.of(SecretMasking.maskText(text)));
  }
}
