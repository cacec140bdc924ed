package dev.txoutbox;

import dev.txoutbox.internal.admin.DefaultOutboxAdmin;
import dev.txoutbox.schema.OutboxSchema;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Operator actions on an outbox: backlog numbers, dead letters (list, requeue, purge) and retention
 * cleanup. Every bulk change runs in bounded chunks, never as one huge statement.
 *
 * <p>The changes are safe to run while relays run and while other operators run changes: each one
 * re-checks its condition in the statement that changes the row, after any concurrent change of
 * that row has committed, so it never touches a row that stopped matching in the meantime. A purge
 * never deletes an event that a concurrent requeue has just made pending, two requeues never count
 * the same event twice, and the cleanup never deletes an event that is not processed. Counts are of
 * rows actually changed.
 *
 * <p>This type is thread-safe.
 */
public interface OutboxAdmin {

  /** Default rows per chunk of bulk changes: 5,000. */
  int DEFAULT_CHUNK_SIZE = 5_000;

  /** Largest rows per chunk: 100,000. */
  int MAX_CHUNK_SIZE = 100_000;

  /** Longest age {@link #cleanupProcessed(Duration, int, LongConsumer)} accepts: 36,500 days. */
  Duration MAX_CLEANUP_AGE = Duration.ofDays(36_500);

  /**
   * Admin operations on the outbox in {@code schema}, each statement in its own transaction.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   */
  static OutboxAdmin create(DataSource dataSource, String schema) {
    Objects.requireNonNull(dataSource, "dataSource");
    return create(DSL.using(dataSource, SQLDialect.POSTGRES), schema);
  }

  /**
   * Admin operations on the outbox in {@code schema} through {@code dsl}.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   */
  static OutboxAdmin create(DSLContext dsl, String schema) {
    Objects.requireNonNull(dsl, "dsl");
    DSLContext mapped =
        DSL.using(dsl.configuration().derive(OutboxSchema.withSchema(dsl.settings(), schema)));
    return new DefaultOutboxAdmin(mapped, Clock.systemUTC());
  }

  /** Events waiting to be published, due or not. */
  long pendingCount();

  /** Dead letters. */
  long deadLetterCount();

  /**
   * Pending, due, dead letters, oldest pending age and recent throughput, in a few index probes.
   */
  OutboxStatus status();

  /**
   * The newest dead letters first.
   *
   * @param eventType only this type, or null for all
   * @param limit at most this many, 1 to 10,000
   * @throws IllegalArgumentException if {@code limit} is out of range
   */
  List<DeadLetter> deadLetters(String eventType, int limit);

  /**
   * Dead letters counted by event type and error fingerprint, the most recent group first. The
   * fingerprint is the last error with its varying parts replaced by {@code ?}: numbers (not those
   * glued to a letter, as in {@code utf8}), UUIDs, hex numbers and quoted values of two characters
   * or more ({@code 'orders-17'}, not the quoted punctuation of {@code expected ',' or ';'}).
   */
  List<DeadLetterGroup> deadLetterGroups();

  /**
   * Makes the selected dead letters pending again, with attempts reset to 0 and no retry delay, so
   * relays publish them at their next poll. The last error is kept for reference. Each dead letter
   * is visited once: one that a relay dead-letters again while this runs stays a dead letter.
   *
   * @return how many events were requeued (dead letters when changed)
   */
  long requeue(DeadLetterSelector selector);

  /** How many dead letters {@link #requeue} or {@link #purge} would touch now. */
  long count(DeadLetterSelector selector);

  /**
   * Deletes the selected dead letters for good; an event requeued meanwhile is left alone.
   *
   * @return how many were deleted (dead letters when deleted)
   */
  long purge(DeadLetterSelector selector);

  /**
   * Deletes processed events older than {@code olderThan}, {@value #DEFAULT_CHUNK_SIZE} rows per
   * statement; see {@link #cleanupProcessed(Duration, int, LongConsumer)}.
   */
  default long cleanupProcessed(Duration olderThan) {
    return cleanupProcessed(olderThan, DEFAULT_CHUNK_SIZE, deleted -> {});
  }

  /**
   * Deletes events processed more than {@code olderThan} ago, {@code chunkSize} rows per statement,
   * each statement committed on its own so locks and WAL stay small. Pending events and dead
   * letters are never touched.
   *
   * @param progress called after each chunk with the total deleted so far
   * @return how many rows were deleted
   * @throws IllegalArgumentException if {@code olderThan} is negative or longer than {@link
   *     #MAX_CLEANUP_AGE}, or {@code chunkSize} is not between 1 and {@value #MAX_CHUNK_SIZE}
   */
  long cleanupProcessed(Duration olderThan, int chunkSize, LongConsumer progress);
}
