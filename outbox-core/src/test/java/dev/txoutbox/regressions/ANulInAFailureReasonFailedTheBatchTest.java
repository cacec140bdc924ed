package dev.txoutbox.regressions;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.TestSupport;
import dev.txoutbox.schema.model.tables.records.OutboxEventsRecord;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL's {@code text} refuses U+0000, and the driver turns a lone surrogate into {@code ?}: a
 * broker's failure reason holding either made the statement that records the batch's failures fail,
 * rolling back the whole batch, acknowledged events included, again and again. The reason is now
 * cleaned (U+FFFD) and cut before it is stored, and the batch completes.
 */
class ANulInAFailureReasonFailedTheBatchTest {

  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("regress_nul");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void aFailureReasonTheDatabaseRefusesIsStoredCleanedAndTheBatchStillCompletes() throws Exception {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 99; i++) {
      events.add(OutboxEvent.of("order", "a" + i, "order.created", "{}"));
    }
    events.add(OutboxEvent.of("order", "poison", "order.poison", "{\"bad\":true}"));
    DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    List<UUID> ids = dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
    UUID bad = ids.get(99);
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(bad)
                        ? PublishResult.permanent(
                            "broker said \u0000 and \uD800 " + "x".repeat(5000))
                        : PublishResult.published());
    OutboxRelay relay = TestSupport.relayBuilder(db, publisher).build();

    assertThat(relay.runOnce()).isEqualTo(100);
    assertThat(relay.runOnce()).isZero();

    assertThat(publisher.batches()).isEqualTo(1);
    assertThat(publisher.publishCounts()).hasSize(99);
    OutboxEventsRecord r =
        TestSupport.mapped(db)
            .selectFrom(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(bad))
            .fetchSingle();
    assertThat(r.getDeadLetteredAt()).isNotNull();
    assertThat(r.getLastError())
        .startsWith("broker said \uFFFD and \uFFFD x")
        .hasSize(2000)
        .endsWith("…")
        .doesNotContain("\u0000");
  }
}
