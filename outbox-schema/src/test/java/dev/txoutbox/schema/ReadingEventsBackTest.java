package dev.txoutbox.schema;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.schema.model.tables.records.OutboxEventsRecord;
import dev.txoutbox.testing.TestDatabase;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The README's "reading events back" example, run as written. */
class ReadingEventsBackTest {

  private static TestDatabase db;

  @BeforeAll
  static void migrate() {
    db = TestDatabase.createEmpty("read_back", 2);
    OutboxSchema.migrate(db.dataSource(), OutboxTables.of(db.schema(), "bill_"));
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  /** The README's example: the events of one aggregate, oldest first. */
  static List<OutboxEventsRecord> eventsOf(DataSource dataSource, String schema, String invoiceId) {
    OutboxTables tables = OutboxTables.of(schema, "bill_");
    DSLContext outbox = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(new Settings()));
    return outbox
        .selectFrom(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.AGGREGATE_TYPE.eq("invoice"))
        .and(OUTBOX_EVENTS.AGGREGATE_ID.eq(invoiceId))
        .orderBy(OUTBOX_EVENTS.SEQ)
        .fetch();
  }

  @Test
  void theDocumentedQueryReadsTheEventsOfOneAggregateInOrder() {
    DSLContext outbox =
        DSL.using(
            db.dataSource(),
            SQLDialect.POSTGRES,
            OutboxTables.of(db.schema(), "bill_").settings(null));
    for (String type : List.of("invoice.issued", "invoice.paid")) {
      outbox
          .insertInto(OUTBOX_EVENTS)
          .set(OUTBOX_EVENTS.ID, UUID.randomUUID())
          .set(OUTBOX_EVENTS.AGGREGATE_TYPE, "invoice")
          .set(OUTBOX_EVENTS.AGGREGATE_ID, "inv-42")
          .set(OUTBOX_EVENTS.EVENT_TYPE, type)
          .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{\"total\": 42}"))
          .execute();
    }

    List<OutboxEventsRecord> events = eventsOf(db.dataSource(), db.schema(), "inv-42");

    assertThat(events)
        .extracting(OutboxEventsRecord::getEventType)
        .containsExactly("invoice.issued", "invoice.paid");
    assertThat(events.get(0).getPayload().data()).isEqualTo("{\"total\": 42}");
    assertThat(events.get(0).getProcessedAt()).isNull();
  }

  @Test
  void withoutTheMappingTheModelNamesItsOwnSchema() {
    DSLContext unmapped = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    assertThat(unmapped.render(OUTBOX_EVENTS)).isEqualTo("\"outbox\".\"outbox_events\"");
    assertThatThrownBy(() -> unmapped.fetchCount(OUTBOX_EVENTS))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("relation \"outbox.outbox_events\" does not exist");
  }
}
