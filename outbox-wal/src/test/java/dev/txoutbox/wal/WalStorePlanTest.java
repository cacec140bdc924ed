package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Ordering;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every statement the WAL relay runs by id finds its rows through the primary key, on an outbox
 * that has never been analyzed (as a new or truncated one, or any with autovacuum off): no
 * sequential scan and no walk of a partial index, which would read the whole outbox for every
 * batch. The ids are bound as one {@code uuid[]}, not as text the server parses back.
 */
class WalStorePlanTest {

  /** A backlog small enough that, without the settings, a sequential scan looks cheapest. */
  private static final int ROWS = 3_000;

  private static final int BATCH = 500;

  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  @ParameterizedTest
  @EnumSource(Ordering.class)
  void theStatementsByIdProbeThePrimaryKeyOfAnOutboxWithoutStatistics(Ordering ordering) {
    OutboxTables tables = LogicalServer.freshOutbox("pl_");
    if (ordering != Ordering.NONE) {
      OutboxSchema.migrateOrderingIndex(LogicalServer.dataSource(), tables);
    }
    // Plain SQL: jOOQ has no generate_series insert as short.
    LogicalServer.execute(
        "INSERT INTO "
            + tables.schema()
            + ".pl_outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', 'o' || i, 'OrderPlaced',"
            + " jsonb_build_object('orderId', 'o' || i, 'lines', repeat('x', 120))"
            + " FROM generate_series(1, "
            + ROWS
            + ") i");
    DSLContext dsl = LogicalServer.dsl(tables);
    assertThat(
            dsl.resultQuery(
                    "SELECT reltuples FROM pg_class WHERE oid = cast({0} as regclass)",
                    tables.schema() + ".pl_outbox_events")
                .fetchSingle()
                .get(0, Double.class))
        .as("the outbox was never analyzed")
        .isEqualTo(-1.0);
    UUID[] ids =
        dsl.select(OUTBOX_EVENTS.ID)
            .from(OUTBOX_EVENTS)
            .orderBy(OUTBOX_EVENTS.SEQ.desc())
            .limit(BATCH)
            .fetchArray(OUTBOX_EVENTS.ID);
    OffsetDateTime now = OffsetDateTime.now();
    String pkey = tables.name("outbox_events_pkey");
    dsl.transaction(
        t -> {
          DSLContext tx = t.dsl();
          WalStore.settingsQuery(tx, ordering, Duration.ofSeconds(1)).fetch();
          Map<String, Query> statements = new LinkedHashMap<>();
          statements.put("claim, marking", WalStore.claimQuery(tx, ids, now));
          statements.put("claim, locking, and seen", WalStore.claimSeenQuery(tx, ids));
          statements.put("visible", WalStore.visibleQuery(tx, ids));
          statements.put("unmark", WalStore.unmarkQuery(tx, ids));
          statements.put(
              "complete, deleting", WalStore.completeQuery(tx, CompletionMode.DELETE, ids, now));
          statements.put(
              "complete, marking",
              WalStore.completeQuery(tx, CompletionMode.MARK_PROCESSED, ids, now));
          statements.put("defer", WalStore.deferQuery(tx, ids, now));
          statements.forEach(
              (name, query) -> {
                assertThat(query.getSQL()).as(name).contains("?::uuid[]");
                String plan = UUID_TEXT.matcher(tx.explain(query).plan()).replaceAll("U");
                assertThat(plan)
                    .as(name + ": %s", plan)
                    .contains(pkey)
                    .doesNotContain("Seq Scan")
                    .doesNotContainIgnoringCase("_ready_idx")
                    .doesNotContainIgnoringCase("_waiting_idx")
                    .doesNotContainIgnoringCase("_processed_idx");
              });
        });
  }
}
