package dev.txoutbox.internal.relay;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Ordering;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestDatabase;
import java.sql.Connection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ordered claim's plan on a table that was never analyzed: index probes only, no per-row
 * subquery over the backlog, and work bounded by the batch whatever the backlog, with aggregates at
 * the front of the walk that a naive claim would read in full (halted behind a dead letter, a head
 * in backoff, a head another relay holds).
 */
class OrderedClaimPlanTest {

  private static final int LIMIT = 100;
  private static final Pattern ACTUAL = Pattern.compile("actual rows=(\\d+) loops=(\\d+)");
  private static final Pattern REMOVED = Pattern.compile("Rows Removed by Filter: (\\d+)");

  private TestDatabase db;
  private DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("ordered_plan", 4);
    OutboxSchema.migrateOrderingIndex(db.dataSource(), db.schema());
    // Keep autovacuum from analyzing the table behind the test's back.
    db.execute("ALTER TABLE " + db.schema() + ".outbox_events SET (autovacuum_enabled = false)");
    dsl =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxSchema.withSchema(null, db.schema()));
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void haltPolicyProbesIndexesOnlyAndReadsTheSameRowsWhateverTheBacklog() throws Exception {
    List<Plan> plans = smallThenLargeBacklog(Ordering.PER_AGGREGATE);

    for (Plan plan : plans) {
      assertThat(plan.text())
          .contains("Index Only Scan using " + OutboxSchema.ORDERING_DEAD_LETTER_INDEX);
      // Each blocked aggregate costs one row of the budget; the short runs end before it.
      assertThat(plan.claimed()).hasSize(LIMIT - 3);
      assertThat(plan.claimed().stream().map(OutboxMessage::aggregateId).distinct())
          .containsExactly("a-short-0", "a-short-1", "a-short-2", "busy-0");
    }
  }

  @Test
  void skipPolicyProbesIndexesOnlyAndReadsTheSameRowsWhateverTheBacklog() throws Exception {
    List<Plan> plans = smallThenLargeBacklog(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS);

    for (Plan plan : plans) {
      assertThat(plan.text()).doesNotContain(OutboxSchema.ORDERING_DEAD_LETTER_INDEX);
      // The halted aggregate's dead letter is parked: its events come first in key order.
      assertThat(plan.claimed())
          .hasSize(LIMIT - 1)
          .allMatch(m -> m.aggregateId().equals("a-halted"));
    }
  }

  /**
   * The claim's plan with 10 busy aggregates of 200 events, then of 2,000, behind the blocked ones,
   * on the never-analyzed table: index probes only, and the same rows read both times.
   */
  private List<Plan> smallThenLargeBacklog(Ordering ordering) throws Exception {
    seedBlockedAggregates();
    seed("busy", 10, 200);
    Plan small = explain(ordering);
    seed("busy", 10, 2_000);
    Plan large = explain(ordering);

    assertThat(neverAnalyzed()).as("the table was never analyzed").isTrue();
    assertIndexProbesOnly(small);
    assertIndexProbesOnly(large);
    System.out.printf(
        "ordered claim (%s) of %d: rows read %d, buffers %d with 17,062 pending;"
            + " rows read %d, buffers %d with 35,062 pending%n",
        ordering, LIMIT, small.rowsRead(), small.buffers(), large.rowsRead(), large.buffers());
    // Three blocked aggregates of 5,000 events each sit at the front of the walk: reading them
    // would cost thousands of rows. Each costs a probe instead. And a run that ends before the
    // limit stops at its aggregate's last entry: the pages read do not grow with the backlog (but
    // for a deeper index).
    assertThat(large.rowsRead()).isEqualTo(small.rowsRead()).isLessThan(3 * LIMIT);
    assertThat(large.buffers()).isLessThanOrEqualTo(small.buffers() * 5 / 4);
    return List.of(small, large);
  }

  @Test
  void thePlanIsTheSameAfterAnalyze() throws Exception {
    seedBlockedAggregates();
    seed("busy", 10, 2_000);
    Plan before = explain(Ordering.PER_AGGREGATE);
    db.execute("ANALYZE " + db.schema() + ".outbox_events");
    Plan after = explain(Ordering.PER_AGGREGATE);

    assertThat(neverAnalyzed()).isFalse();
    assertIndexProbesOnly(after);
    assertThat(shape(after.text())).isEqualTo(shape(before.text()));
    assertThat(after.rowsRead()).isEqualTo(before.rowsRead());
  }

  private static void assertIndexProbesOnly(Plan plan) {
    assertThat(plan.text())
        .as("plan:%n%s", plan.text())
        .doesNotContain("Seq Scan")
        .doesNotContain("Bitmap")
        .doesNotContain("Sort")
        .doesNotContain("Hash")
        .doesNotContain("Materialize")
        // A SubPlan runs once per row of its outer node: over the backlog, that is the quadratic
        // claim this one replaces.
        .doesNotContain("SubPlan")
        .doesNotContain("outbox_events_pending_idx ")
        .contains("Index Cond: (ROW((aggregate_type)::text, (aggregate_id)::text) > ROW(")
        .contains("Index Scan using outbox_events_pkey");
    // The walk's first probe, its next probes, and the runs.
    assertThat(plan.text().split("Index Scan using " + OutboxSchema.ORDERING_INDEX, -1)).hasSize(4);
  }

  /** The plan without its figures, to compare shapes. */
  private static String shape(String plan) {
    return plan.replaceAll("\\(actual[^)]*\\)", "")
        .replaceAll(
            "(?m)^\\s*(Rows Removed by Filter|Heap Fetches|Buffers|Planning|Execution Time).*$\\n?",
            "")
        .replaceAll("'[^']*'", "?");
  }

  private record Plan(String text, long rowsRead, long buffers, List<OutboxMessage> claimed) {}

  /**
   * Runs the claim under EXPLAIN ANALYZE in a transaction that is rolled back, while another
   * connection holds the head of {@code a-locked}, and runs the same claim for its result.
   */
  private Plan explain(Ordering ordering) throws Exception {
    OffsetDateTime now = OffsetDateTime.now();
    try (Connection other = db.dataSource().getConnection()) {
      other.setAutoCommit(false);
      DSLContext holder = DSL.using(other, SQLDialect.POSTGRES, dsl.settings());
      holder
          .selectFrom(OUTBOX_EVENTS)
          .where(OUTBOX_EVENTS.AGGREGATE_ID.eq("a-locked"))
          .orderBy(OUTBOX_EVENTS.SEQ)
          .limit(1)
          .forUpdate()
          .fetch();
      AtomicReference<Plan> plan = new AtomicReference<>();
      try {
        dsl.transaction(
            c -> {
              DSLContext tx = c.dsl();
              OrderedClaim claim = new OrderedClaim(ordering);
              OrderedClaim.pinPlan(tx);
              var statement =
                  claim.rendered(
                      tx,
                      new OrderedClaim.Walk(null, null, LIMIT, now, RelayStore.MESSAGE_COLUMNS));
              // EXPLAIN with options is not part of jOOQ's DSL: a template around the statement.
              List<String> lines =
                  tx.resultQuery("explain (analyze, buffers, costs off, timing off) {0}", statement)
                      .fetch(0, String.class);
              plan.set(
                  new Plan(
                      String.join("\n", lines), rowsRead(lines), PlanFigures.buffers(lines), null));
              throw new RolledBack();
            });
      } catch (RolledBack expected) {
        // the EXPLAIN's locks are gone with the transaction
      }
      List<OutboxMessage> claimed =
          dsl.transactionResult(
              c -> new OrderedClaim(ordering).claim(c.dsl(), LIMIT, now).events());
      other.rollback();
      return new Plan(plan.get().text(), plan.get().rowsRead(), plan.get().buffers(), claimed);
    }
  }

  private static final class RolledBack extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }

  /** Rows produced or filtered out by every scan of the plan, over all its loops. */
  private static long rowsRead(List<String> lines) {
    long rows = 0;
    for (String line : lines) {
      if (!line.contains("Index Scan") && !line.contains("Index Only Scan")) {
        Matcher removed = REMOVED.matcher(line);
        if (removed.find()) {
          rows += Long.parseLong(removed.group(1));
        }
        continue;
      }
      Matcher m = ACTUAL.matcher(line);
      if (m.find()) {
        rows += Long.parseLong(m.group(1)) * Long.parseLong(m.group(2));
      }
    }
    return rows;
  }

  private boolean neverAnalyzed() {
    // pg_stats is a catalog view, outside the generated model: no row until the first ANALYZE.
    return dsl.fetchCount(
            DSL.table(DSL.name("pg_catalog", "pg_stats")),
            DSL.field(DSL.name("schemaname")).eq(db.schema()),
            DSL.field(DSL.name("tablename")).eq("outbox_events"))
        == 0;
  }

  /**
   * Aggregates that sort before every busy one, each with 5,000 due events that must not be read:
   * one halted behind a dead letter, one whose head is in backoff, one whose head another relay
   * holds. Then three aggregates of 20 events, runs shorter than the batch.
   */
  private void seedBlockedAggregates() {
    OffsetDateTime now = OffsetDateTime.now();
    insert("a-halted", 1, null);
    dsl.update(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.DEAD_LETTERED_AT, now)
        .where(OUTBOX_EVENTS.AGGREGATE_ID.eq("a-halted"))
        .execute();
    insert("a-halted", 5_000, null);
    insert("a-backoff", 1, now.plusHours(1));
    insert("a-backoff", 5_000, null);
    insert("a-locked", 5_001, null);
    for (int i = 0; i < 3; i++) {
      insert("a-short-" + i, 20, null);
    }
  }

  /** Adds events to {@code aggregates} aggregates until each holds {@code perAggregate}. */
  private void seed(String prefix, int aggregates, int perAggregate) {
    int have =
        dsl.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.AGGREGATE_ID.like(prefix + "%")) / aggregates;
    Field<Integer> n = DSL.field(DSL.name("g", "n"), Integer.class);
    insert(
        DSL.inline(prefix + "-").concat(n.mod(aggregates)),
        (perAggregate - have) * aggregates,
        null);
  }

  private void insert(String aggregateId, int count, OffsetDateTime retryAfter) {
    insert(DSL.inline(aggregateId), count, retryAfter);
  }

  /** Inserts {@code count} events, the n-th (from 1) of aggregate {@code aggregateId(n)}. */
  private void insert(Field<String> aggregateId, int count, OffsetDateTime retryAfter) {
    dsl.insertInto(
            OUTBOX_EVENTS,
            OUTBOX_EVENTS.ID,
            OUTBOX_EVENTS.AGGREGATE_TYPE,
            OUTBOX_EVENTS.AGGREGATE_ID,
            OUTBOX_EVENTS.EVENT_TYPE,
            OUTBOX_EVENTS.PAYLOAD,
            OUTBOX_EVENTS.RETRY_AFTER)
        .select(
            DSL.select(
                    DSL.function("gen_random_uuid", UUID.class),
                    DSL.inline("order"),
                    aggregateId,
                    DSL.inline("order.created"),
                    DSL.inline(JSONB.jsonb("{}")),
                    DSL.val(retryAfter, OUTBOX_EVENTS.RETRY_AFTER))
                .from(DSL.generateSeries(1, count).as("g", "n")))
        .execute();
  }
}
