package dev.txoutbox.inbox;

import static dev.txoutbox.inbox.model.Tables.INBOX_PROCESSED_EVENTS;
import static org.jooq.impl.DSL.row;
import static org.jooq.impl.DSL.select;

import dev.txoutbox.inbox.model.tables.InboxProcessedEvents;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.SchemaMigrations;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The idempotent consumer: remembers, per consumer name, which event ids it processed, in a table
 * of the consumer's own database, so that the second delivery of an event is recognised and
 * dropped.
 *
 * <p>{@link #firstTime(DSLContext, String, UUID)} runs inside the consumer's own jOOQ transaction,
 * before the consumer's work: it inserts {@code (consumer, event_id)} with {@code ON CONFLICT DO
 * NOTHING} and says whether the row is new. The mark and the work's effects then commit together or
 * not at all: a transaction that rolls back leaves the event unmarked and the next delivery
 * processes it. Two deliveries of one event racing on two threads are processed once: the second
 * insert waits for the first transaction, then finds the row (after a commit) or inserts it (after
 * a roll-back).
 *
 * <p>{@link #process(DSLContext, String, InboxEvent, InboxWork)} does the check and the work in one
 * step: the work runs only the first time, and a failure in it undoes the mark with the work, in a
 * subtransaction of the caller's transaction.
 *
 * <pre>{@code
 * OutboxInbox.migrate(dataSource, "shipping");
 * OutboxInbox inbox = OutboxInbox.builder().schema("shipping").build();
 * dsl.transaction(configuration -> {
 *   DSLContext tx = configuration.dsl();
 *   inbox.process(tx, "shipping", event, work -> createShipment(work, payload));
 * });
 * }</pre>
 *
 * <p>The table lives in the schema given to the builder; its migrations have their own classpath
 * location ({@value #LOCATION}) and Flyway history table ({@value #HISTORY_TABLE}), so they never
 * mix with the consumer's own migrations, or with the producer's outbox. Old marks are removed by
 * {@link #cleanup(DSLContext, Duration, int)} in bounded chunks.
 *
 * <p>This class is thread-safe: it is immutable.
 */
public final class OutboxInbox {

  /** The schema used when none is given. */
  public static final String DEFAULT_SCHEMA = OutboxSchema.DEFAULT_SCHEMA;

  /** The schema name the generated jOOQ classes carry; mapped at runtime to the real one. */
  public static final String MODEL_SCHEMA = "inbox";

  /** Classpath location of the inbox migrations. */
  public static final String LOCATION = "classpath:db/migration/outbox-inbox";

  /** Flyway history table of the inbox migrations. */
  public static final String HISTORY_TABLE = "outbox_inbox_schema_history";

  /**
   * Longest consumer name: 255 characters as PostgreSQL counts them in the {@code consumer
   * varchar(255)} column, that is Unicode code points (a character outside the Basic Multilingual
   * Plane counts once, though Java holds it in two {@code char}s).
   */
  public static final int MAX_CONSUMER_NAME_LENGTH = 255;

  /**
   * Longest {@code olderThan} {@link #cleanup(DSLContext, Duration, int)} accepts: 36,500 days, the
   * outbox's own cleanup limit ({@code OutboxAdmin.MAX_CLEANUP_AGE} in outbox-core). A longer age
   * would reach before PostgreSQL's earliest timestamp, or past what {@link OffsetDateTime} can
   * subtract, and fail in the database or the date arithmetic instead of naming the argument.
   */
  public static final Duration MAX_CLEANUP_AGE = Duration.ofDays(36_500);

  /** Largest {@code chunkSize} {@link #cleanup(DSLContext, Duration, int)} accepts. */
  public static final int MAX_CHUNK_SIZE = 100_000;

  private static final InboxProcessedEvents T = INBOX_PROCESSED_EVENTS;

  private final String schema;
  private final Clock clock;
  private final RenderMapping renderMapping;

  private OutboxInbox(Builder builder) {
    this.schema = builder.schema;
    this.clock = builder.clock;
    this.renderMapping =
        new RenderMapping()
            .withSchemata(new MappedSchema().withInput(MODEL_SCHEMA).withOutput(schema));
  }

  /** A builder with the defaults: schema {@value #DEFAULT_SCHEMA}, the UTC system clock. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Creates or upgrades the inbox table in {@code schema} of the consumer's database, creating the
   * schema if needed. Safe to call from several processes at once: Flyway serialises them with an
   * advisory lock.
   *
   * @param dataSource the consumer's database; a connection with the right to create tables
   * @param schema the target schema, a lower-case PostgreSQL identifier (see {@link
   *     OutboxSchema#requireSchemaName(String)})
   * @return the number of migrations applied by this call (0 when already up to date)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrate(DataSource dataSource, String schema) {
    return SchemaMigrations.migrate(
        dataSource, schema, LOCATION, HISTORY_TABLE, OutboxInbox.class.getClassLoader());
  }

  /**
   * Marks {@code eventId} as processed by {@code consumerName} in the caller's transaction {@code
   * tx}, and says whether this is the first time. Call it before the work, in the same transaction:
   * when it returns {@code false} the event was processed already (or is being processed by a
   * transaction that then committed) and the work must be skipped. One {@code INSERT … ON CONFLICT
   * DO NOTHING}; the mark is visible to others once {@code tx} commits and disappears if it rolls
   * back. Keyed by {@code (consumerName, eventId)}: two consumers of one event are independent.
   *
   * <p>While another transaction holds the mark of the same event uncommitted, this call waits for
   * it to end.
   *
   * @param tx the consumer's transaction, on the consumer's database
   * @param consumerName the consumer, 1 to {@value #MAX_CONSUMER_NAME_LENGTH} characters, not blank
   * @param eventId the event, such as {@link InboxEvent#eventId()}
   * @return {@code true} if the event is new for this consumer, {@code false} for a duplicate
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code consumerName} is not valid (see {@link
   *     #requireConsumerName(String)}); nothing is written
   * @throws IllegalStateException if {@code tx}'s connection is in auto-commit mode, where the mark
   *     would commit before the work; nothing is written
   * @throws org.jooq.exception.DataAccessException if the database fails
   */
  public boolean firstTime(DSLContext tx, String consumerName, UUID eventId) {
    requireMarkArguments(tx, consumerName, eventId, "firstTime");
    return mark(tx, consumerName, eventId);
  }

  /**
   * Runs {@code work} for {@code event} the first time {@code consumerName} receives it, in the
   * caller's transaction {@code tx}: the duplicate check and the work in one step that cannot be
   * half done. The event's mark and the work's statements run in a subtransaction (a {@code
   * SAVEPOINT}) of {@code tx}:
   *
   * <ul>
   *   <li>a duplicate (marked by a committed transaction) returns {@code false} and does not run
   *       {@code work};
   *   <li>the first delivery runs {@code work} and returns {@code true}; the mark and the work's
   *       effects become visible when the caller commits {@code tx} and are undone if it rolls
   *       back;
   *   <li>if {@code work} throws (or the database fails), the subtransaction is rolled back, the
   *       mark and every statement {@code work} ran on {@code tx} with it, and the exception is
   *       thrown on; {@code tx} stays usable, so a batch may catch it, carry on with its other
   *       events and commit them, and the failed event is processed at its next delivery.
   * </ul>
   *
   * <p>Two deliveries of one event on two threads run the work once, as with {@link
   * #firstTime(DSLContext, String, UUID)}: the second waits for the first transaction to end. Only
   * what {@code work} runs on {@code tx} is undone on failure, not its effects elsewhere (another
   * connection, a broker, a file).
   *
   * <p>Cost: two statements more than {@code firstTime} ({@code SAVEPOINT} and {@code RELEASE}).
   * Each first delivery keeps a subtransaction id until {@code tx} ends; PostgreSQL caches 64 per
   * transaction in shared memory, beyond which, while it lasts, other sessions' visibility checks
   * must look in {@code pg_subtrans} (slower), so keep a transaction to at most 64 first deliveries
   * (commit every 50 records, say), or use {@code firstTime} where a batch succeeds or fails as a
   * whole.
   *
   * @param tx the consumer's transaction, on the consumer's database
   * @param consumerName the consumer (see {@link #requireConsumerName(String)})
   * @param event the delivered event; its {@link InboxEvent#eventId()} is the key
   * @param work what to do the first time, on {@code tx}
   * @return {@code true} if {@code work} ran, {@code false} for a duplicate
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code consumerName} is not valid; nothing is written and
   *     {@code work} does not run
   * @throws IllegalStateException if {@code tx}'s connection is in auto-commit mode; nothing is
   *     written and {@code work} does not run
   * @throws org.jooq.exception.DataAccessException if the database fails
   */
  public boolean process(DSLContext tx, String consumerName, InboxEvent event, InboxWork work) {
    return process(tx, consumerName, Objects.requireNonNull(event, "event").eventId(), work);
  }

  /**
   * {@link #process(DSLContext, String, InboxEvent, InboxWork)} for a consumer that has the event
   * id only.
   */
  public boolean process(DSLContext tx, String consumerName, UUID eventId, InboxWork work) {
    Objects.requireNonNull(work, "work");
    requireMarkArguments(tx, consumerName, eventId, "process");
    return Savepoint.around(
        tx,
        () -> {
          boolean first = mark(tx, consumerName, eventId);
          if (first) {
            work.run(tx);
          }
          return first;
        });
  }

  /**
   * Deletes the marks recorded more than {@code olderThan} ago (by this inbox's clock), every
   * consumer's, in chunks of at most {@code chunkSize} rows, each chunk in a transaction of its own
   * (see {@link #cleanupChunk(DSLContext, Duration, int)}), until a chunk comes back short. The
   * cut-off is fixed at the start, so marks recorded meanwhile never keep it running. A duplicate
   * delivered after its mark is gone is processed again, so keep marks longer than the broker can
   * redeliver.
   *
   * @param dsl the consumer's database
   * @return the number of marks deleted
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code olderThan} is negative or longer than {@link
   *     #MAX_CLEANUP_AGE}, or {@code chunkSize} is not 1 to {@value #MAX_CHUNK_SIZE}; nothing is
   *     deleted
   */
  public long cleanup(DSLContext dsl, Duration olderThan, int chunkSize) {
    OffsetDateTime cutoff = cutoff(dsl, olderThan, chunkSize);
    long total = 0;
    int deleted;
    do {
      deleted = deleteChunk(dsl, cutoff, chunkSize);
      total += deleted;
    } while (deleted == chunkSize);
    return total;
  }

  /**
   * Deletes at most {@code chunkSize} of the oldest marks recorded more than {@code olderThan} ago,
   * in one transaction of its own (joined as a savepoint if {@code dsl} is inside one). Rows
   * another cleanup holds are skipped, so concurrent cleanups never wait for each other.
   *
   * @param dsl the consumer's database
   * @return the number of marks deleted; less than {@code chunkSize} when no more are due
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code olderThan} is negative or longer than {@link
   *     #MAX_CLEANUP_AGE}, or {@code chunkSize} is not 1 to {@value #MAX_CHUNK_SIZE}; nothing is
   *     deleted
   */
  public int cleanupChunk(DSLContext dsl, Duration olderThan, int chunkSize) {
    return deleteChunk(dsl, cutoff(dsl, olderThan, chunkSize), chunkSize);
  }

  /**
   * Checks a consumer name before anything is written, so that a name reaches the table exactly as
   * given and two different names are never stored as one: not null; no U+0000 (PostgreSQL text
   * cannot hold it); no unpaired UTF-16 surrogate (the driver would send {@code ?} in its place,
   * storing {@code c} + U+D800 and {@code c} + U+DC00 both as {@code c?}); not blank, where white
   * space of any kind (no-break spaces included), control characters and invisible ones (zero-width
   * spaces and joiners, the byte order mark, variation selectors) count as blank; at most {@value
   * #MAX_CONSUMER_NAME_LENGTH} characters counted as PostgreSQL counts them (code points). Names
   * are compared exactly, without Unicode normalisation.
   *
   * @return {@code consumerName}
   * @throws NullPointerException if {@code consumerName} is null
   * @throws IllegalArgumentException if it breaks one of those rules, naming {@code consumerName}
   *     and the rule
   */
  public static String requireConsumerName(String consumerName) {
    return ConsumerName.require(consumerName);
  }

  /** The schema holding this inbox's table. */
  public String schema() {
    return schema;
  }

  /**
   * The checks before a mark: arguments, and a connection in a transaction, without which the mark
   * would commit before the work.
   */
  private static void requireMarkArguments(
      DSLContext tx, String consumerName, UUID eventId, String method) {
    Objects.requireNonNull(tx, "tx");
    requireConsumerName(consumerName);
    Objects.requireNonNull(eventId, "eventId");
    if (tx.connectionResult(Connection::getAutoCommit)) {
      throw new IllegalStateException(
          "OutboxInbox."
              + method
              + "(tx, ...) needs the consumer's transaction, but the connection is in auto-commit"
              + " mode: call it inside dsl.transaction(...)");
    }
  }

  private boolean mark(DSLContext tx, String consumerName, UUID eventId) {
    return mapped(tx)
            .insertInto(T, T.CONSUMER, T.EVENT_ID, T.PROCESSED_AT)
            .values(consumerName, eventId, now())
            .onConflictDoNothing()
            .execute()
        == 1;
  }

  private int deleteChunk(DSLContext dsl, OffsetDateTime cutoff, int chunkSize) {
    return dsl.transactionResult(
        configuration ->
            mapped(configuration.dsl())
                .deleteFrom(T)
                .where(
                    row(T.CONSUMER, T.EVENT_ID)
                        .in(
                            select(T.CONSUMER, T.EVENT_ID)
                                .from(T)
                                .where(T.PROCESSED_AT.lt(cutoff))
                                .orderBy(T.PROCESSED_AT)
                                .limit(chunkSize)
                                .forUpdate()
                                .skipLocked()))
                .execute());
  }

  private OffsetDateTime cutoff(DSLContext dsl, Duration olderThan, int chunkSize) {
    Objects.requireNonNull(dsl, "dsl");
    Objects.requireNonNull(olderThan, "olderThan");
    if (olderThan.isNegative() || olderThan.compareTo(MAX_CLEANUP_AGE) > 0) {
      throw new IllegalArgumentException(
          "olderThan must be between 0 and "
              + MAX_CLEANUP_AGE.toDays()
              + " days but was "
              + olderThan);
    }
    if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
      throw new IllegalArgumentException(
          "chunkSize must be 1 to " + MAX_CHUNK_SIZE + " but was " + chunkSize);
    }
    return now().minus(olderThan);
  }

  private OffsetDateTime now() {
    return OffsetDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
  }

  /** A context on the same connection and transaction that renders the model's schema as ours. */
  private DSLContext mapped(DSLContext tx) {
    Settings settings = ((Settings) tx.settings().clone()).withRenderMapping(renderMapping);
    return DSL.using(tx.configuration().derive(settings));
  }

  /**
   * Builds an {@link OutboxInbox}. Not thread-safe; {@link #build()} copies the settings, so the
   * builder can be reused.
   */
  public static final class Builder {

    private String schema = DEFAULT_SCHEMA;
    private Clock clock = Clock.systemUTC();

    private Builder() {}

    /**
     * The schema holding the inbox table, in the consumer's database; the one given to {@link
     * OutboxInbox#migrate(DataSource, String)}. Defaults to {@value OutboxInbox#DEFAULT_SCHEMA}.
     *
     * @throws NullPointerException if {@code schema} is null
     * @throws IllegalArgumentException if {@code schema} is not a valid schema name (see {@link
     *     OutboxSchema#requireSchemaName(String)})
     */
    public Builder schema(String schema) {
      this.schema = OutboxSchema.requireSchemaName(schema);
      return this;
    }

    /**
     * The clock that stamps each mark and from which {@code cleanup}'s {@code olderThan} is
     * measured. Defaults to the UTC system clock.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** A new inbox with these settings. */
    public OutboxInbox build() {
      return new OutboxInbox(this);
    }
  }
}
