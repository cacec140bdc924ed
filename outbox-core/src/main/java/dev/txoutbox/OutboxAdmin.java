package dev.txoutbox;

import dev.txoutbox.internal.OutboxDatabase;
import dev.txoutbox.internal.admin.DefaultOutboxAdmin;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;

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

  /** Starts configuring an admin. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Admin operations on the outbox in {@code schema}, each statement in its own transaction; the
   * same as {@code builder().dataSource(dataSource).schema(schema).build()}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   */
  static OutboxAdmin create(DataSource dataSource, String schema) {
    return builder().dataSource(dataSource).schema(schema).build();
  }

  /**
   * Admin operations on the outbox in {@code schema} through {@code dsl}; the same as {@code
   * builder().dsl(dsl).schema(schema).build()}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid name
   */
  static OutboxAdmin create(DSLContext dsl, String schema) {
    return builder().dsl(dsl).schema(schema).build();
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
   * The events table's size, dead tuples, last vacuum and whether autovacuum visits it, from
   * PostgreSQL's statistics: one statement, no scan of the table.
   */
  TableUpkeep tableUpkeep();

  /**
   * The newest dead letters first. Every selected row is returned, also one the relay could not
   * read: headers that are not a JSON object of strings come as {@link DeadLetter#rawHeaders()}, a
   * payload the server cannot send as a null {@link DeadLetter#payload()}; nothing stored is
   * changed. When a page holds a row the server cannot send, its rows are read one by one (a few
   * statements per row); inside a caller's transaction that row's failed statement aborts the
   * transaction, so list such rows through a data source.
   *
   * @param eventType only this type, or null for all
   * @param limit at most this many, 1 to 10,000
   * @throws IllegalArgumentException if {@code limit} is out of range
   */
  List<DeadLetter> deadLetters(@Nullable String eventType, int limit);

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

  /**
   * The outbox this admin works on: its schema and table prefix. A relay's admin ({@link
   * OutboxRelay#admin()}) answers the relay's.
   */
  OutboxTables tables();

  /** Configures an {@link OutboxAdmin}. Not thread-safe. */
  final class Builder {
    private @Nullable DataSource dataSource;
    private @Nullable DSLContext dsl;
    private String schema = OutboxSchema.DEFAULT_SCHEMA;
    private String tablePrefix = "";
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * Where the outbox lives; each statement runs in its own transaction. Or use {@link #dsl}.
     *
     * @throws NullPointerException if {@code dataSource} is null
     */
    public Builder dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * Where the outbox lives, as a jOOQ context (its transaction, if it is in one, is used); an
     * alternative to {@link #dataSource}.
     *
     * @throws NullPointerException if {@code dsl} is null
     */
    public Builder dsl(DSLContext dsl) {
      this.dsl = Objects.requireNonNull(dsl, "dsl");
      return this;
    }

    /**
     * The schema holding the outbox tables. Defaults to {@code public}.
     *
     * @throws NullPointerException if {@code schema} is null
     */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /**
     * The prefix of the outbox's table names: {@code bill_} works on {@code
     * <schema>.bill_outbox_events}. Checked at {@link #build()} with {@link OutboxTables#of(String,
     * String)}. Defaults to none.
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

    /**
     * The clock the admin reads "now" from: the cutoff of {@link
     * OutboxAdmin#cleanupProcessed(Duration, int, LongConsumer)}, and in {@link
     * OutboxAdmin#status()} which events are due, how long the longest-waiting due event has waited
     * and the last minute's throughput. Defaults to the system clock in UTC.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Checks the settings and makes the admin.
     *
     * @throws IllegalStateException unless exactly one of a data source and a DSL context was given
     * @throws IllegalArgumentException if the schema or the table prefix is not valid ({@link
     *     OutboxTables#of(String, String)})
     */
    public OutboxAdmin build() {
      OutboxTables tables = OutboxTables.of(schema, tablePrefix);
      return new DefaultOutboxAdmin(
          OutboxDatabase.mapped("the admin", dataSource, dsl, tables, settings -> settings),
          tables,
          clock);
    }
  }
}
