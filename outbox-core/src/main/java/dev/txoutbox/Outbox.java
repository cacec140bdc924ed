package dev.txoutbox;

import dev.txoutbox.internal.writer.DefaultOutbox;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.TransactionListener;
import org.jspecify.annotations.Nullable;

/**
 * Records events in the outbox table inside the caller's transaction: the event is published if and
 * only if the transaction commits.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().schema("billing").build();
 * dsl.transaction(tx -> {
 *   tx.dsl().insertInto(ORDERS).set(...).execute();
 *   outbox.record(tx.dsl(), "order", orderId, "order.created", "{\"total\":42}");
 * });
 * }</pre>
 *
 * <p>With the relay in the same process, {@code Outbox.builder().relay(relay)} takes the relay's
 * schema and table prefix instead, so they are named once, on the relay's builder.
 *
 * <p>This type is thread-safe.
 */
public interface Outbox {

  /** Creates a writer for the outbox in the {@code public} schema with default settings. */
  static Outbox create() {
    return builder().build();
  }

  /** Starts configuring a writer. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Records one event with one INSERT through {@code tx}, in the caller's transaction. The writer
   * never opens, commits or rolls back a transaction: the event becomes visible to the relay when
   * the caller commits, and vanishes with a rollback.
   *
   * <p>Every field is checked before anything is written, each in the unit PostgreSQL enforces for
   * its column: types and ids 1 to 255 characters (code points) that are not all whitespace; the
   * payload JSON that PostgreSQL's {@code jsonb} accepts, nested at most 500 arrays and objects
   * deep, and at most {@link Builder#maxPayloadBytes} UTF-8 bytes both as given and as PostgreSQL
   * writes it back; at most 64 headers, string to string, names 1 to 255 bytes and values at most
   * 8,192 bytes of UTF-8; {@code notBefore} within PostgreSQL's timestamptz range. No text may hold
   * U+0000 or an unpaired UTF-16 surrogate. A refused call throws before it touches the database,
   * so the caller's transaction stays usable.
   *
   * <p>The INSERT is rendered once per writer and runs on {@code tx}'s connection. If {@code tx}'s
   * configuration has execute listeners, a static statement type or a query timeout, it runs
   * through jOOQ, so those listeners (loggers, tracers, Spring's exception translator) see it and
   * those settings apply; otherwise it runs as a JDBC prepared statement, and jOOQ's DEBUG log of
   * executed SQL does not show it. The caller's render mapping never moves the outbox table.
   *
   * @param tx the caller's transactional context, such as {@code configuration.dsl()} inside {@code
   *     dsl.transaction(...)}
   * @param event the event
   * @return the new event's id (a time-ordered UUID, version 7)
   * @throws NullPointerException if an argument or a required field is null
   * @throws IllegalArgumentException if a field breaks its limit; the message names the field and
   *     the limit
   * @throws IllegalStateException if {@code tx}'s connection is in auto-commit mode (no
   *     transaction) and the writer was not built with {@link Builder#allowAutoCommit(boolean)}, or
   *     if {@code tx} takes a new connection from a {@code DataSource} for each statement (a
   *     context outside any jOOQ transaction) and the writer was not built with {@link
   *     Builder#externallyManagedTransactions(boolean)}
   * @throws org.jooq.exception.DataAccessException if the INSERT fails
   */
  UUID record(DSLContext tx, OutboxEvent event);

  /**
   * Records one event without headers; see {@link #record(DSLContext, OutboxEvent)}.
   *
   * @param payload JSON text, UTF-8 JSON bytes, {@code JSONB}, or an object for the {@link
   *     PayloadSerializer}
   */
  default UUID record(
      DSLContext tx, String aggregateType, String aggregateId, String eventType, Object payload) {
    return record(tx, OutboxEvent.of(aggregateType, aggregateId, eventType, payload));
  }

  /**
   * Records several events with multi-row INSERTs (at most {@value
   * DefaultOutbox#MAX_ROWS_PER_STATEMENT} events and 64 MiB per statement), in list order, in the
   * caller's transaction. All events are checked first: one bad event rejects the call and nothing
   * is written. With {@link Builder#allowAutoCommit(boolean)} on an auto-commit connection the call
   * writes its statements in one transaction of its own: all of its events or none.
   *
   * @return the new ids, in the order of {@code events}
   * @throws NullPointerException if an argument or a required field is null
   * @throws IllegalArgumentException if any event breaks a limit; the message names the event's
   *     index, the field and the limit
   * @throws IllegalStateException as {@link #record(DSLContext, OutboxEvent)}
   */
  List<UUID> recordAll(DSLContext tx, List<OutboxEvent> events);

  /**
   * A jOOQ transaction listener that wakes in-process relays right after a transaction that
   * recorded events commits, so they publish within milliseconds instead of at their next poll.
   * Install it on the {@link org.jooq.Configuration} your transactions run on: {@code
   * configuration.set(outbox.transactionListener())}. Without it everything still works, at the
   * relay's poll interval.
   *
   * <p>Any one writer's listener wakes the relays of every writer that recorded in the committing
   * transaction: with several outboxes (schemas, table prefixes), install one of their listeners
   * and a transaction that writes to two of them wakes both relays; installing several wakes each
   * relay once.
   */
  TransactionListener transactionListener();

  /**
   * Configures an {@link Outbox}. Not thread-safe; {@link #build()} copies what it needs, so a
   * builder can be reused.
   */
  final class Builder {

    /** Default of {@link #maxPayloadBytes(int)}: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

    /**
     * The largest {@link #maxPayloadBytes(int)}: 40 MiB (41,943,040). The binary jsonb of JSON text
     * can be 6 times the text, and PostgreSQL refuses jsonb over 268,435,455 bytes, so every
     * accepted payload fits.
     */
    public static final int MAX_PAYLOAD_BYTES_LIMIT = DefaultOutbox.MAX_PAYLOAD_BYTES_LIMIT;

    private @Nullable String schema;
    private @Nullable String tablePrefix;
    private @Nullable OutboxRelay relay;
    private @Nullable PayloadSerializer serializer;
    private HeadersProvider headersProvider = HeadersProvider.none();
    private boolean allowAutoCommit;
    private boolean externallyManagedTransactions;
    private boolean lockPerAggregate;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private final List<Runnable> afterCommit = new ArrayList<>();

    private Builder() {}

    /**
     * The schema holding the outbox tables, for a writer whose relay runs elsewhere (another
     * process, the {@code txoutbox relay} command). Defaults to {@code public}, or to the schema of
     * the {@link #relay(OutboxRelay) relay} this writer feeds.
     */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
      return this;
    }

    /**
     * The prefix of the outbox's table names, for a writer whose relay runs elsewhere: {@code
     * bill_} records into {@code <schema>.bill_outbox_events}. Checked at {@link #build()} with
     * {@link OutboxTables#of(String, String)}. Defaults to none, or to the prefix of the {@link
     * #relay(OutboxRelay) relay} this writer feeds.
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
     * The relay in this process that publishes what this writer records: the writer records into
     * the relay's tables ({@link OutboxAdmin#tables() relay.admin().tables()}: its schema and table
     * prefix) and wakes it after each commit, as {@link #afterCommit(Runnable)
     * afterCommit(relay::wakeUp)} would. So the tables are named once, on the relay's builder.
     * Defaults to none.
     *
     * @throws NullPointerException if {@code relay} is null
     */
    public Builder relay(OutboxRelay relay) {
      this.relay = Objects.requireNonNull(relay, "relay");
      return this;
    }

    /**
     * Serialises payloads that are not JSON already. Defaults to none: such payloads are rejected.
     */
    public Builder payloadSerializer(PayloadSerializer serializer) {
      this.serializer = Objects.requireNonNull(serializer, "serializer");
      return this;
    }

    /** Adds headers to every event, such as trace context. Defaults to none. */
    public Builder headersProvider(HeadersProvider headersProvider) {
      this.headersProvider = Objects.requireNonNull(headersProvider, "headersProvider");
      return this;
    }

    /**
     * Whether to write on a connection in auto-commit mode, where the events commit on their own,
     * not atomically with any business row. One call still writes all of its events or none: when
     * it needs more than one statement it runs them in a transaction of its own. Defaults to {@code
     * false}: such a call throws {@link IllegalStateException}.
     */
    public Builder allowAutoCommit(boolean allowAutoCommit) {
      this.allowAutoCommit = allowAutoCommit;
      return this;
    }

    /**
     * Whether to trust a {@code DSLContext} on a {@code DataSource} (jOOQ's {@code
     * DataSourceConnectionProvider}) used outside any jOOQ transaction: right when that data source
     * hands out the connection of a transaction managed elsewhere, such as Spring's {@code
     * TransactionAwareDataSourceProxy} or a JTA data source. Defaults to {@code false}: such a
     * context, on a connection that is not in auto-commit mode, is refused with {@link
     * IllegalStateException}, because each statement would run on a pooled connection that nobody
     * commits and the events would silently be rolled back.
     */
    public Builder externallyManagedTransactions(boolean externallyManagedTransactions) {
      this.externallyManagedTransactions = externallyManagedTransactions;
      return this;
    }

    /**
     * Whether each call first takes transaction-scoped advisory locks for the aggregates it writes,
     * so that transactions writing events of one aggregate commit one after the other, in the order
     * of their sequence numbers. Needed for the relay's {@link Ordering per-aggregate ordering}
     * when such transactions may overlap without locking the aggregate's own row. Costs one more
     * statement per call and serialises those writers.
     *
     * <p>Aggregates are hashed onto 256 lock slots: a transaction holds at most 256 locks however
     * many aggregates it writes, and two aggregates sharing a slot also wait for each other. A call
     * takes its slots in ascending order, so transactions that write all their events in one call
     * ({@code record} of one aggregate, or one {@code recordAll} of any number) never deadlock. A
     * transaction that calls the writer several times for different aggregates can deadlock with
     * another doing the same in the opposite order; PostgreSQL then aborts one of them ({@code
     * deadlock detected}). Write such a transaction's events with one {@code recordAll}. Defaults
     * to {@code false}.
     */
    public Builder lockPerAggregate(boolean lockPerAggregate) {
      this.lockPerAggregate = lockPerAggregate;
      return this;
    }

    /**
     * The largest payload accepted, in UTF-8 bytes, counted both on the JSON text given and on the
     * text PostgreSQL writes back for it (jsonb's form: whitespace removed, one space after each
     * {@code :} and {@code ,}, numbers in full, so {@code 1e100000} is 100,001 bytes), so that a
     * relay always reads it back within this limit. From 1 to {@value #MAX_PAYLOAD_BYTES_LIMIT}.
     * Defaults to 1 MiB (1,048,576).
     */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /**
     * Runs {@code action} after each transaction that recorded events commits, when the {@link
     * #transactionListener()} is installed; typically {@code relay::wakeUp}. May be called more
     * than once. The action must be fast and must not throw; a throwing action is logged.
     */
    public Builder afterCommit(Runnable action) {
      afterCommit.add(Objects.requireNonNull(action, "action"));
      return this;
    }

    /**
     * Checks the settings and makes the writer.
     *
     * @throws IllegalArgumentException if the schema or the table prefix is not valid ({@link
     *     OutboxTables#of(String, String)}), or {@code maxPayloadBytes} is not between 1 and
     *     {@value #MAX_PAYLOAD_BYTES_LIMIT}
     * @throws IllegalStateException if a {@link #schema(String) schema} or a {@link
     *     #tablePrefix(String) table prefix} was given with a {@link #relay(OutboxRelay) relay} of
     *     another one
     */
    public Outbox build() {
      OutboxTables tables;
      List<Runnable> actions = new ArrayList<>(afterCommit);
      if (relay != null) {
        OutboxTables theirs = relay.admin().tables();
        if (schema != null && !schema.equals(theirs.schema())) {
          throw new IllegalStateException(
              "schema(...) must be the schema of the relay(...) this writer feeds, '"
                  + theirs.schema()
                  + "', but was '"
                  + schema
                  + "'");
        }
        if (tablePrefix != null && !tablePrefix.equals(theirs.tablePrefix())) {
          throw new IllegalStateException(
              "tablePrefix(...) must be the table prefix of the relay(...) this writer feeds, '"
                  + theirs.tablePrefix()
                  + "', but was '"
                  + tablePrefix
                  + "'");
        }
        tables = theirs;
        actions.add(relay::wakeUp);
      } else {
        tables =
            OutboxTables.of(
                schema == null ? OutboxSchema.DEFAULT_SCHEMA : schema,
                tablePrefix == null ? "" : tablePrefix);
      }
      if (maxPayloadBytes < 1 || maxPayloadBytes > MAX_PAYLOAD_BYTES_LIMIT) {
        throw new IllegalArgumentException(
            "maxPayloadBytes must be between 1 and "
                + MAX_PAYLOAD_BYTES_LIMIT
                + " (40 MiB: PostgreSQL's jsonb limit over the 6-fold growth of JSON text into"
                + " jsonb) but was "
                + maxPayloadBytes);
      }
      return new DefaultOutbox(
          tables,
          serializer,
          headersProvider,
          allowAutoCommit,
          externallyManagedTransactions,
          lockPerAggregate,
          maxPayloadBytes,
          actions);
    }
  }
}
