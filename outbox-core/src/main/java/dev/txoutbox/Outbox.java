package dev.txoutbox;

import dev.txoutbox.internal.writer.DefaultOutbox;
import dev.txoutbox.schema.OutboxSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.TransactionListener;

/**
 * Records events in the outbox table inside the caller's transaction: the event is published if and
 * only if the transaction commits.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.builder().schema("billing").build();
 * dsl.transaction(tx -> {
 *   tx.dsl().insertInto(ORDERS).set(...).execute();
 *   outbox.publish(tx.dsl(), "order", orderId, "order.created", "{\"total\":42}");
 * });
 * }</pre>
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
   * <p>Every field is checked before anything is written: types and ids must be 1 to 255 characters
   * without U+0000, the payload valid JSON of at most {@link Builder#maxPayloadBytes} bytes,
   * headers string to string within the limits of {@link Builder}.
   *
   * @param tx the caller's transactional context, such as {@code configuration.dsl()} inside {@code
   *     dsl.transaction(...)}
   * @param event the event
   * @return the new event's id (a time-ordered UUID, version 7)
   * @throws NullPointerException if an argument or a required field is null
   * @throws IllegalArgumentException if a field breaks its limit; the message names the field and
   *     the limit
   * @throws IllegalStateException if {@code tx}'s connection is in auto-commit mode (no
   *     transaction) and the writer was not built with {@link Builder#allowAutoCommit(boolean)}
   * @throws org.jooq.exception.DataAccessException if the INSERT fails
   */
  UUID publish(DSLContext tx, OutboxEvent event);

  /**
   * Records one event without headers; see {@link #publish(DSLContext, OutboxEvent)}.
   *
   * @param payload JSON text, UTF-8 JSON bytes, {@code JSONB}, or an object for the {@link
   *     PayloadSerializer}
   */
  default UUID publish(
      DSLContext tx, String aggregateType, String aggregateId, String eventType, Object payload) {
    return publish(tx, OutboxEvent.of(aggregateType, aggregateId, eventType, payload));
  }

  /**
   * Records several events with one multi-row INSERT (one statement per {@value
   * DefaultOutbox#MAX_ROWS_PER_STATEMENT} events), in list order, in the caller's transaction. All
   * events are checked first: one bad event rejects the call and nothing is written.
   *
   * @return the new ids, in the order of {@code events}
   * @throws NullPointerException if an argument or a required field is null
   * @throws IllegalArgumentException if any event breaks a limit; the message names the event's
   *     index, the field and the limit
   * @throws IllegalStateException as {@link #publish(DSLContext, OutboxEvent)}
   */
  List<UUID> publishAll(DSLContext tx, List<OutboxEvent> events);

  /**
   * A jOOQ transaction listener that wakes in-process relays right after a transaction that
   * recorded events commits, so they publish within milliseconds instead of at their next poll.
   * Install it on the {@link org.jooq.Configuration} your transactions run on: {@code
   * configuration.set(outbox.transactionListener())}. Without it everything still works, at the
   * relay's poll interval.
   */
  TransactionListener transactionListener();

  /**
   * Configures an {@link Outbox}. Not thread-safe; {@link #build()} copies what it needs, so a
   * builder can be reused.
   */
  final class Builder {

    /** Default of {@link #maxPayloadBytes(int)}: 1 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;

    private String schema = OutboxSchema.DEFAULT_SCHEMA;
    private PayloadSerializer serializer;
    private HeadersProvider headersProvider = HeadersProvider.none();
    private boolean allowAutoCommit;
    private boolean lockPerAggregate;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private final List<Runnable> afterCommit = new ArrayList<>();

    private Builder() {}

    /** The schema holding the outbox tables. Defaults to {@code public}. */
    public Builder schema(String schema) {
      this.schema = Objects.requireNonNull(schema, "schema");
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
     * Whether to write on a connection in auto-commit mode, where the event commits on its own, not
     * atomically with any business row. Defaults to {@code false}: such a call throws.
     */
    public Builder allowAutoCommit(boolean allowAutoCommit) {
      this.allowAutoCommit = allowAutoCommit;
      return this;
    }

    /**
     * Whether each write first takes a transaction-scoped advisory lock per aggregate it writes, so
     * that transactions writing events of one aggregate commit one after the other, in the order of
     * their sequence numbers. Needed for the relay's {@link Ordering per-aggregate ordering} when
     * such transactions may overlap without locking the aggregate's own row; costs one more
     * statement per call and serialises those writers. Defaults to {@code false}.
     */
    public Builder lockPerAggregate(boolean lockPerAggregate) {
      this.lockPerAggregate = lockPerAggregate;
      return this;
    }

    /**
     * The largest payload accepted, in UTF-8 bytes of its JSON text. Defaults to 1 MiB (1,048,576).
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
     * @throws IllegalArgumentException if the schema is not a valid name, or {@code
     *     maxPayloadBytes} is not between 1 and 268,435,455 (PostgreSQL's jsonb limit)
     */
    public Outbox build() {
      OutboxSchema.requireSchemaName(schema);
      if (maxPayloadBytes < 1 || maxPayloadBytes > DefaultOutbox.JSONB_LIMIT) {
        throw new IllegalArgumentException(
            "maxPayloadBytes must be between 1 and "
                + DefaultOutbox.JSONB_LIMIT
                + " but was "
                + maxPayloadBytes);
      }
      return new DefaultOutbox(
          schema,
          serializer,
          headersProvider,
          allowAutoCommit,
          lockPerAggregate,
          maxPayloadBytes,
          afterCommit);
    }
  }
}
