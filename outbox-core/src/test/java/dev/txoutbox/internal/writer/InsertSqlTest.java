package dev.txoutbox.internal.writer;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.schema.OutboxTables;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep7;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/** The INSERT rendered once is the one jOOQ renders for the same rows, for every outbox table. */
class InsertSqlTest {

  private final DSLContext render = DSL.using(SQLDialect.POSTGRES);

  @Test
  void everyRowCountIsTheStatementJooqRendersForItsTable() {
    for (OutboxTables tables :
        new OutboxTables[] {
          OutboxTables.defaults(), OutboxTables.in("billing"), OutboxTables.of("billing", "shop_")
        }) {
      InsertSql sql = new InsertSql(tables);
      for (int rows : new int[] {1, 2, 3, 17}) {
        assertThat(sql.sql(rows)).as("%s, %d rows", tables, rows).isEqualTo(jooq(tables, rows));
      }
    }
  }

  @Test
  void namesTheTableWithItsSchemaAndPrefix() {
    assertThat(new InsertSql(OutboxTables.of("billing", "shop_")).sql(1))
        .startsWith("insert into \"billing\".\"shop_outbox_events\" (\"id\", ");
  }

  @Test
  void bindsEachRowsValuesWithTheColumnTypes() {
    EventRow row =
        new EventRow(
            "order", "o-1", "order.created", JSONB.valueOf("{}"), JSONB.valueOf("{}"), null, 4);
    Object[] values = new Object[2 * InsertSql.COLUMNS];
    UUID id = UUID.randomUUID();
    InsertSql.bind(values, InsertSql.COLUMNS, id, row);

    assertThat(values).startsWith(new Object[InsertSql.COLUMNS]);
    assertThat(((org.jooq.Param<?>) values[InsertSql.COLUMNS]).getValue()).isEqualTo(id);
    assertThat(((org.jooq.Param<?>) values[InsertSql.COLUMNS + 4]).getDataType())
        .isEqualTo(OUTBOX_EVENTS.PAYLOAD.getDataType());
    assertThat(((org.jooq.Param<?>) values[InsertSql.COLUMNS + 6]).getDataType())
        .isEqualTo(OUTBOX_EVENTS.RETRY_AFTER.getDataType());
  }

  @Test
  void runsDirectlyOnlyWhenNoListenerOrSettingOfTheCallerWouldMiss() {
    assertThat(InsertSql.direct(new org.jooq.impl.DefaultConfiguration())).isTrue();
    assertThat(
            InsertSql.direct(
                new org.jooq.impl.DefaultConfiguration().set(new org.jooq.ExecuteListener() {})))
        .isFalse();
    assertThat(
            InsertSql.direct(
                new org.jooq.impl.DefaultConfiguration()
                    .set(
                        new org.jooq.conf.Settings()
                            .withStatementType(org.jooq.conf.StatementType.STATIC_STATEMENT))))
        .isFalse();
    assertThat(
            InsertSql.direct(
                new org.jooq.impl.DefaultConfiguration()
                    .set(new org.jooq.conf.Settings().withQueryTimeout(5))))
        .isFalse();
  }

  @Test
  void writesTimesAsPostgresqlTextWithBcYears() {
    assertThat(InsertSql.timestamptz(OffsetDateTime.parse("2030-01-02T05:04:05.123456+02:00")))
        .isEqualTo("2030-01-02 03:04:05.123456+00");
    assertThat(InsertSql.timestamptz(OffsetDateTime.parse("-4713-11-24T00:00:00Z")))
        .isEqualTo("4714-11-24 00:00:00.000000+00 BC");
    assertThat(InsertSql.timestamptz(OffsetDateTime.parse("+294276-12-31T23:59:59.999999Z")))
        .isEqualTo("294276-12-31 23:59:59.999999+00");
    assertThat(InsertSql.timestamptz(OffsetDateTime.parse("0005-03-04T00:00:00Z")))
        .isEqualTo("0005-03-04 00:00:00.000000+00");
  }

  /** What the writer rendered on every call before: a jOOQ insert of {@code rows} rows. */
  private String jooq(OutboxTables tables, int rows) {
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
              UUID.randomUUID(),
              "a" + i,
              "b",
              "c",
              JSONB.valueOf("[" + i + "]"),
              JSONB.valueOf("{}"),
              i % 2 == 0 ? null : OffsetDateTime.now());
    }
    return render.render(insert);
  }

  private static <T> Field<T> column(Field<T> generated) {
    return DSL.field(DSL.name(generated.getName()), generated.getDataType());
  }
}
