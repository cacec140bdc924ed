package dev.txoutbox.internal.writer;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.schema.OutboxTables;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.jooq.Configuration;
import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.InsertValuesStep7;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * The writer's INSERT for one outbox table, rendered by jOOQ once and reused for every call: jOOQ
 * building and rendering the statement on each call cost about twice the CPU of a plain JDBC insert
 * in a fresh JVM (benchmarks' {@code WriterFreshJvm}). The SQL names the table with its schema, so
 * the caller's {@code RenderMapping} cannot move it; a statement of {@code n} rows repeats the one
 * row's {@code values} tuple.
 *
 * <p>It runs on the caller's connection, in the caller's transaction, as a JDBC prepared statement
 * when the caller's configuration has no execute listener and no setting that changes execution
 * ({@link #direct}); otherwise as jOOQ plain SQL with the values bound with the generated model's
 * column types, so the caller's listeners (loggers, tracers, Spring's exception translator) see it.
 * A failure is a jOOQ {@code DataAccessException} either way. Immutable and thread-safe.
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

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("MM-dd HH:mm:ss.SSSSSS", Locale.ROOT);

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

  /**
   * Inserts {@code rows} with the ids {@code ids} (one each) in one statement, on {@code
   * connection}, the connection of {@code dsl}. When nothing in the caller's configuration would
   * see or change the statement ({@link #direct}), it runs as a JDBC prepared statement; otherwise
   * it runs through jOOQ, so the caller's execute listeners see it and its settings apply.
   *
   * @throws DataAccessException if the INSERT fails
   */
  void execute(DSLContext dsl, Connection connection, List<EventRow> rows, UUID[] ids) {
    String sql = sql(rows.size());
    if (!direct(dsl.configuration())) {
      Object[] values = new Object[rows.size() * COLUMNS];
      for (int i = 0; i < ids.length; i++) {
        bind(values, i * COLUMNS, ids[i], rows.get(i));
      }
      // Plain SQL here is jOOQ's own rendering of the INSERT, kept; see the class comment.
      dsl.query(sql, values).execute();
      return;
    }
    try (PreparedStatement insert = connection.prepareStatement(sql)) {
      int p = 0;
      for (int i = 0; i < ids.length; i++) {
        EventRow row = rows.get(i);
        insert.setObject(++p, ids[i]);
        insert.setString(++p, row.aggregateType());
        insert.setString(++p, row.aggregateId());
        insert.setString(++p, row.eventType());
        insert.setString(++p, row.payload().data()); // cast(? as jsonb), as jOOQ binds it
        insert.setString(++p, row.headers().data());
        OffsetDateTime notBefore = row.notBefore();
        if (notBefore == null) {
          insert.setNull(++p, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
          insert.setString(++p, timestamptz(notBefore)); // cast(? as timestamp with time zone)
        }
      }
      insert.executeUpdate();
    } catch (SQLException e) {
      // What jOOQ would throw, naming the statement (its first row only: it may have thousands).
      throw new DataAccessException(
          "SQL ["
              + (rows.size() == 1 ? sql : sql(1) + " and " + (rows.size() - 1) + " more rows")
              + "]; "
              + e.getMessage(),
          e);
    }
  }

  /**
   * PostgreSQL's text of a UTC time, to the microsecond, BC years included: pgjdbc binds an {@code
   * OffsetDateTime} near either end of timestamptz's range as {@code ±infinity}.
   */
  static String timestamptz(OffsetDateTime time) {
    OffsetDateTime utc = time.withOffsetSameInstant(ZoneOffset.UTC);
    int year = utc.getYear();
    String text =
        String.format(Locale.ROOT, "%04d-", year > 0 ? year : 1 - year)
            + TIME.format(utc.toLocalDateTime())
            + "+00";
    return year > 0 ? text : text + " BC";
  }

  /**
   * Whether the INSERT may bypass jOOQ's execution: the caller's configuration has no execute
   * listener, which would expect to see it, and no setting that changes how jOOQ runs it (static
   * statements, a query timeout). jOOQ's own DEBUG log of executed SQL misses it then.
   */
  static boolean direct(Configuration configuration) {
    Settings settings = configuration.settings();
    Integer timeout = settings.getQueryTimeout();
    return configuration.executeListenerProviders().length == 0
        && settings.getStatementType() != StatementType.STATIC_STATEMENT
        && (timeout == null || timeout == 0);
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
