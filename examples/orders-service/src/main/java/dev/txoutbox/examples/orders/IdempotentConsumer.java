package dev.txoutbox.examples.orders;

import static dev.txoutbox.schema.model.Tables.PROCESSED_EVENTS;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxHeaders;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.Objects;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * Handles each event at most once per consumer, however often the broker delivers it, with the
 * outbox's {@code processed_events (consumer, event_id)} table.
 *
 * <p>Processing an event inserts {@code (consumer, event_id)} with {@code ON CONFLICT DO NOTHING};
 * when the row is new the work runs in the same transaction, when it was there nothing runs. So the
 * work's effects and the "done" mark commit together or not at all: work that throws rolls the mark
 * back, and the next delivery tries again. Two deliveries of one event racing on two threads run
 * the work once: the second insert waits for the first transaction and then finds the row.
 *
 * <pre>{@code
 * IdempotentConsumer shipping = new IdempotentConsumer(dsl, "shop", "shipping");
 * for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
 *   shipping.process(IdempotentConsumer.eventId(record), tx -> createShipment(tx, record));
 * }
 * }</pre>
 *
 * <p>{@link #process(UUID, Work)} runs one transaction per event; {@link #process(DSLContext, UUID,
 * Work)} joins the caller's, so a whole poll of records can commit at once.
 *
 * <p>This class is thread-safe.
 */
public final class IdempotentConsumer {

  /** What {@code process} did with a delivery. */
  public enum Outcome {
    /** First delivery for this consumer: the work ran, in the transaction that marks the event. */
    PROCESSED,
    /** Already processed by this consumer: nothing ran. */
    DUPLICATE
  }

  /** The consumer's handling of one event, run inside the transaction that marks it. */
  @FunctionalInterface
  public interface Work {
    /**
     * @param tx the transaction; write through it so the effects commit with the mark
     */
    void run(DSLContext tx) throws Exception;
  }

  /** Longest consumer name: the column's 255 characters. */
  public static final int MAX_NAME_LENGTH = 255;

  private final DSLContext dsl;
  private final String schema;
  private final String consumer;

  /**
   * @param dsl where the outbox tables are, for {@link #process(UUID, Work)}'s own transactions
   * @param schema the schema holding the outbox tables
   * @param consumer this consumer's name; each name deduplicates on its own
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name, or {@code
   *     consumer} is blank or longer than {@value #MAX_NAME_LENGTH} characters
   */
  public IdempotentConsumer(DSLContext dsl, String schema, String consumer) {
    Objects.requireNonNull(dsl, "dsl");
    Objects.requireNonNull(consumer, "consumer");
    if (consumer.isBlank() || consumer.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "consumer must be 1 to "
              + MAX_NAME_LENGTH
              + " characters and not blank, but was '"
              + consumer
              + "'");
    }
    this.dsl = dsl;
    this.schema = OutboxSchema.requireSchemaName(schema);
    this.consumer = consumer;
  }

  /** This consumer's name in {@code processed_events}. */
  public String name() {
    return consumer;
  }

  /**
   * Runs {@code work} for {@code eventId} in a new transaction with the mark, unless this consumer
   * processed that event before.
   *
   * @return {@link Outcome#PROCESSED} if the work ran and committed, {@link Outcome#DUPLICATE} if
   *     the event had been processed already
   * @throws NullPointerException if an argument is null
   * @throws RuntimeException what {@code work} threw (a checked exception wrapped in jOOQ's {@code
   *     DataAccessException}), or a database failure; either way nothing was committed and the
   *     event is not marked
   */
  public Outcome process(UUID eventId, Work work) {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(work, "work");
    return dsl.transactionResult(configuration -> mark(configuration.dsl(), eventId, work));
  }

  /**
   * Runs {@code work} for {@code eventId} in the caller's transaction {@code tx}, after marking the
   * event, unless this consumer processed it before. Both commit with {@code tx}; if {@code work}
   * throws, the exception propagates and the caller's transaction must roll back (jOOQ's {@code
   * transaction(...)} does), which removes the mark too.
   *
   * @return {@link Outcome#PROCESSED} if the work ran, {@link Outcome#DUPLICATE} if the event had
   *     been processed already; final once {@code tx} commits
   * @throws NullPointerException if an argument is null
   * @throws IllegalStateException if {@code tx}'s connection is in auto-commit mode, where the mark
   *     would commit before the work
   * @throws RuntimeException what {@code work} threw (a checked exception wrapped in jOOQ's {@code
   *     DataAccessException}), or a database failure
   */
  public Outcome process(DSLContext tx, UUID eventId, Work work) {
    Objects.requireNonNull(tx, "tx");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(work, "work");
    if (tx.connectionResult(Connection::getAutoCommit)) {
      throw new IllegalStateException(
          "IdempotentConsumer.process(tx, ...) needs the caller's transaction, but the connection"
              + " is in auto-commit mode: call it inside dsl.transaction(...), or use"
              + " process(eventId, work)");
    }
    try {
      return mark(tx, eventId, work);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new DataAccessException("work for event " + eventId + " failed", e);
    }
  }

  private Outcome mark(DSLContext tx, UUID eventId, Work work) throws Exception {
    // A context on the same connection, rendering the generated model's schema as ours.
    DSLContext mapped =
        DSL.using(tx.configuration().derive(OutboxSchema.withSchema(tx.settings(), schema)));
    int inserted =
        mapped
            .insertInto(PROCESSED_EVENTS, PROCESSED_EVENTS.CONSUMER, PROCESSED_EVENTS.EVENT_ID)
            .values(consumer, eventId)
            .onConflictDoNothing()
            .execute();
    if (inserted == 0) {
      return Outcome.DUPLICATE;
    }
    work.run(tx);
    return Outcome.PROCESSED;
  }

  /**
   * The outbox event id a publisher put on a Kafka record, from its {@value OutboxHeaders#EVENT_ID}
   * header.
   *
   * @throws IllegalArgumentException if the record has no such header or its value is not a UUID
   */
  public static UUID eventId(ConsumerRecord<?, ?> record) {
    Header header = record.headers().lastHeader(OutboxHeaders.EVENT_ID);
    if (header == null || header.value() == null) {
      throw new IllegalArgumentException(
          "record " + position(record) + " has no " + OutboxHeaders.EVENT_ID + " header");
    }
    String value = new String(header.value(), StandardCharsets.UTF_8);
    try {
      return UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "record "
              + position(record)
              + ": header "
              + OutboxHeaders.EVENT_ID
              + " is not a UUID: '"
              + value
              + "'",
          e);
    }
  }

  private static String position(ConsumerRecord<?, ?> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }
}
