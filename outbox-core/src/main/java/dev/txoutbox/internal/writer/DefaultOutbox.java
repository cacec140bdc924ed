package dev.txoutbox.internal.writer;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.HeadersProvider;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.PayloadSerializer;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.model.tables.records.OutboxEventsRecord;
import java.sql.Connection;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep7;
import org.jooq.JSONB;
import org.jooq.TransactionListener;
import org.jooq.impl.DSL;

/** The {@link Outbox} writer: validation, then one multi-row INSERT in the caller's transaction. */
public final class DefaultOutbox implements Outbox {

  /**
   * Rows per INSERT statement: 7 bind values a row stays well below PostgreSQL's 65,535 bind
   * parameters per statement.
   */
  public static final int MAX_ROWS_PER_STATEMENT = 5000;

  /** PostgreSQL's largest jsonb value, in bytes. */
  public static final int JSONB_LIMIT = 268_435_455;

  private final String schema;
  private final EventValidator validator;
  private final boolean allowAutoCommit;
  private final boolean lockPerAggregate;
  private final CommitWakeUp wakeUp;

  public DefaultOutbox(
      String schema,
      PayloadSerializer serializer,
      HeadersProvider headersProvider,
      boolean allowAutoCommit,
      boolean lockPerAggregate,
      int maxPayloadBytes,
      List<Runnable> afterCommit) {
    this.schema = schema;
    this.validator = new EventValidator(serializer, headersProvider, maxPayloadBytes);
    this.allowAutoCommit = allowAutoCommit;
    this.lockPerAggregate = lockPerAggregate;
    this.wakeUp = new CommitWakeUp(afterCommit);
  }

  @Override
  public UUID publish(DSLContext tx, OutboxEvent event) {
    Objects.requireNonNull(tx, "tx");
    EventRow row = validator.validate(event, "event");
    return insert(tx, List.of(row)).get(0);
  }

  @Override
  public List<UUID> publishAll(DSLContext tx, List<OutboxEvent> events) {
    Objects.requireNonNull(tx, "tx");
    Objects.requireNonNull(events, "events");
    if (events.isEmpty()) {
      return List.of();
    }
    List<EventRow> rows = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      rows.add(validator.validate(events.get(i), "events[" + i + "]"));
    }
    return insert(tx, rows);
  }

  @Override
  public TransactionListener transactionListener() {
    return wakeUp;
  }

  private List<UUID> insert(DSLContext tx, List<EventRow> rows) {
    requireTransaction(tx);
    DSLContext dsl =
        DSL.using(tx.configuration().derive(OutboxSchema.withSchema(tx.settings(), schema)));
    if (lockPerAggregate) {
      AggregateLocks.lock(dsl, rows);
    }
    long now = System.currentTimeMillis();
    List<UUID> ids = new ArrayList<>(rows.size());
    for (int from = 0; from < rows.size(); from += MAX_ROWS_PER_STATEMENT) {
      InsertValuesStep7<
              OutboxEventsRecord, UUID, String, String, String, JSONB, JSONB, OffsetDateTime>
          insert =
              dsl.insertInto(
                  OUTBOX_EVENTS,
                  OUTBOX_EVENTS.ID,
                  OUTBOX_EVENTS.AGGREGATE_TYPE,
                  OUTBOX_EVENTS.AGGREGATE_ID,
                  OUTBOX_EVENTS.EVENT_TYPE,
                  OUTBOX_EVENTS.PAYLOAD,
                  OUTBOX_EVENTS.HEADERS,
                  OUTBOX_EVENTS.RETRY_AFTER);
      for (EventRow row :
          rows.subList(from, Math.min(rows.size(), from + MAX_ROWS_PER_STATEMENT))) {
        UUID id = UuidV7.next(now);
        ids.add(id);
        insert =
            insert.values(
                id,
                row.aggregateType(),
                row.aggregateId(),
                row.eventType(),
                row.payload(),
                row.headers(),
                row.notBefore());
      }
      insert.execute();
    }
    wakeUp.eventsWritten();
    return ids;
  }

  private void requireTransaction(DSLContext tx) {
    if (allowAutoCommit) {
      return;
    }
    boolean autoCommit = tx.connectionResult(Connection::getAutoCommit);
    if (autoCommit) {
      throw new IllegalStateException(
          "Outbox.publish needs the caller's transaction, but the connection is in auto-commit"
              + " mode: call it inside dsl.transaction(tx -> outbox.publish(tx.dsl(), ...)), or"
              + " build the Outbox with allowAutoCommit(true) to write the event on its own");
    }
  }
}
