package dev.txoutbox.internal.writer;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.schema.OutboxTables;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.InsertValuesStep7;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The writer's INSERT for one outbox table, rendered by jOOQ once and reused for every call: jOOQ
 * rendering the statement on each call cost several times the CPU of the JDBC insert itself in a
 * fresh JVM. The SQL names the table with its schema, so the caller's {@code RenderMapping} cannot
 * move it; a statement of {@code n} rows repeats the one row's {@code values} tuple. Values are
 * bound with the generated model's column types ({@link #bind}). Immutable and thread-safe.
 */
final class InsertSql {

  /** Bind values per row: id, aggregate type, aggregate id, event type, payload, headers, delay. */
  static final int COLUMNS = 7;

  private static final String VALUES = " values ";

  private static final DataType<UUID> ID = OUTBOX_EVENTS.ID.getDataType();
  private static final DataType<String> AGGREGATE_TYPE = OUTBOX_EVENTS.AGGREGATE_TYPE.getDataType();
  private static final DataType<String> AGGREGATE_ID = OUTBOX_EVENTS.AGGREGATE_ID.getDataType();
  private static final DataType<String> EVENT_TYPE = OUTBOX_EVENTS.EVENT_TYPE.getDataType();
  private static final DataType<JSONB> PAYLOAD = OUTBOX_EVENTS.PAYLOAD.getDataType();
  private static final DataType<JSONB> HEADERS = OUTBOX_EVENTS.HEADERS.getDataType();
  private static final DataType<OffsetDateTime> RETRY_AFTER =
      OUTBOX_EVENTS.RETRY_AFTER.getDataType();

  private final String head;
  private final String row;
  private final String oneRow;

  InsertSql(OutboxTables tables) {
    DSLContext render = DSL.using(SQLDialect.POSTGRES);
    this.oneRow = render.render(statement(render, tables, 1));
    int at = oneRow.lastIndexOf(VALUES);
    if (at < 0) {
      throw new IllegalStateException("jOOQ's INSERT must have a values clause but was " + oneRow);
    }
    this.head = oneRow.substring(0, at + VALUES.length());
    this.row = oneRow.substring(at + VALUES.length());
    String two = render.render(statement(render, tables, 2));
    if (!two.equals(sql(2))) {
      throw new IllegalStateException(
          "jOOQ's two-row INSERT must repeat the one row's values but was " + two);
    }
  }

  /** The statement of {@code rows} rows. */
  String sql(int rows) {
    if (rows == 1) {
      return oneRow;
    }
    StringBuilder sql = new StringBuilder(head.length() + rows * (row.length() + 2)).append(head);
    for (int i = 0; i < rows; i++) {
      if (i > 0) {
        sql.append(", ");
      }
      sql.append(row);
    }
    return sql.toString();
  }

  /** Puts the bind values of one row at {@code values[offset..offset + COLUMNS)}. */
  static void bind(Object[] values, int offset, UUID id, EventRow row) {
    values[offset] = DSL.val(id, ID);
    values[offset + 1] = DSL.val(row.aggregateType(), AGGREGATE_TYPE);
    values[offset + 2] = DSL.val(row.aggregateId(), AGGREGATE_ID);
    values[offset + 3] = DSL.val(row.eventType(), EVENT_TYPE);
    values[offset + 4] = DSL.val(row.payload(), PAYLOAD);
    values[offset + 5] = DSL.val(row.headers(), HEADERS);
    values[offset + 6] = DSL.val(row.notBefore(), RETRY_AFTER);
  }

  /** The INSERT as jOOQ builds it, with {@code rows} rows of placeholder values. */
  private static InsertValuesStep7<
          Record, UUID, String, String, String, JSONB, JSONB, OffsetDateTime>
      statement(DSLContext render, OutboxTables tables, int rows) {
    InsertValuesStep7<Record, UUID, String, String, String, JSONB, JSONB, OffsetDateTime> insert =
        render.insertInto(
            DSL.table(DSL.name(tables.schema(), tables.eventsTable())),
            column(OUTBOX_EVENTS.ID),
            column(OUTBOX_EVENTS.AGGREGATE_TYPE),
            column(OUTBOX_EVENTS.AGGREGATE_ID),
            column(OUTBOX_EVENTS.EVENT_TYPE),
            column(OUTBOX_EVENTS.PAYLOAD),
            column(OUTBOX_EVENTS.HEADERS),
            column(OUTBOX_EVENTS.RETRY_AFTER));
    for (int i = 0; i < rows; i++) {
      insert =
          insert.values(
              new UUID(0, 0),
              "",
              "",
              "",
              JSONB.valueOf("{}"),
              JSONB.valueOf("{}"),
              OffsetDateTime.MIN);
    }
    return insert;
  }

  private static <T> Field<T> column(Field<T> generated) {
    return DSL.field(DSL.name(generated.getName()), generated.getDataType());
  }
}
