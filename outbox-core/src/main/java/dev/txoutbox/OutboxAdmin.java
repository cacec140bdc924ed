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
 * cleanup. Every bulk change runs in bounded chunks, never as one huge statement. This type is
 * thread-safe.
 */
public interface OutboxAdmin {

  /** Default rows per chunk of bulk changes: 5,000. */
  int DEFAULT_CHUNK_SIZE = 5_000;

  /** Largest rows per chunk: 100,000. */
  int MAX_CHUNK_SIZE = 100_000;

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
   * Dead letters counted by event type and error fingerprint (the last error with numbers, ids and
   * quoted values replaced by {@code ?}), the most recent group first.
   */
  List<DeadLetterGroup> deadLetterGroups();

  /**
   * Makes the selected dead letters pending again, with attempts reset to 0 and no retry delay, so
   * relays publish them at their next poll. The last error is kept for reference.
   *
   * @return how many events were requeued
   */
  long requeue(DeadLetterSelector selector);

  /** How many dead letters {@link #requeue} or {@link #purge} would touch now. */
  long count(DeadLetterSelector selector);

  /**
   * Deletes the selected dead letters for good.
   *
   * @return how many were deleted
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
   * @throws IllegalArgumentException if {@code olderThan} is negative or {@code chunkSize} is not
   *     between 1 and {@value #MAX_CHUNK_SIZE}
   */
  long cleanupProcessed(Duration olderThan, int chunkSize, LongConsumer progress);
}
