package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestDatabase;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The unordered claim with many events waiting for a later time (delayed with {@code notBefore}, or
 * in a long retry backoff): an idle poll probes the two indexes and reads no waiting row, however
 * many there are, and a wait that is over makes its event claimable at once.
 */
class WaitingEventsClaimPlanTest {

  private static final int LIMIT = 100;

  private TestDatabase db;
  private DSLContext dsl;

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("waiting_plan", 4);
    dsl =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES, OutboxSchema.withSchema(null, db.schema()));
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void anIdlePollWithFiftyThousandEventsWaitingProbesTwoIndexesAndReadsNoRow() {
    insertWaiting(50_000, "interval '7 days'");
    analyze();
    Plan plan = explainClaim();

    assertThat(plan.text())
        .as("plan:%n%s", plan.text())
        .contains("outbox_events_waiting_idx")
        .contains("outbox_events_ready_idx")
        .doesNotContain("Seq Scan")
        .doesNotContain("Bitmap")
        .doesNotContain("Sort");
    assertThat(plan.rows()).isZero();
    System.out.printf("idle claim with 50,000 events waiting: %d buffers%n", plan.buffers());
    // One probe of each index. With one index on seq for every pending row, the claim read all
    // 50,000 waiting rows, hundreds of pages, to find none due.
    assertThat(plan.buffers()).isLessThan(20);
  }

  @Test
  void eventsWhoseWaitIsOverComeFirstThenReadyOnesAndTheBatchIsInSeqOrder() {
    insertReady(50);
    insertWaiting(30, "interval '-1 minute'");
    insertWaiting(1_000, "interval '1 day'");
    insertReady(50);

    List<OutboxMessage> first =
        dsl.transactionResult(c -> RelayStore.claim(c.dsl(), 40, OffsetDateTime.now()).events());
    assertThat(first).hasSize(40);
    assertThat(first.stream().filter(m -> m.aggregateId().startsWith("waiting"))).hasSize(30);
    assertThat(first).isSortedAccordingTo((a, b) -> Long.compare(a.sequence(), b.sequence()));

    List<OutboxMessage> all =
        dsl.transactionResult(c -> RelayStore.claim(c.dsl(), 1_000, OffsetDateTime.now()).events());
    assertThat(all)
        .as("every due event, none of those waiting a day")
        .hasSize(130)
        .noneMatch(m -> m.aggregateId().startsWith("waiting-1 day"));
  }

  @Test
  void theClaimRenderedOnceReadsTheBatchJooqReadsAndCompletesIt() {
    insertReady(5);
    insertWaiting(3, "interval '-1 minute'");
    insertWaiting(4, "interval '1 day'");
    BatchStatements statements = new BatchStatements();
    OffsetDateTime now = OffsetDateTime.now();

    List<OutboxMessage> jooq =
        dsl.transactionResult(c -> RelayStore.claim(c.dsl(), 6, now).events());
    for (int cycle = 0; cycle < 7; cycle++) { // past the driver's server-prepare threshold
      List<OutboxMessage> rendered =
          dsl.transactionResult(c -> statements.claimAndPinPlans(c.dsl(), 6, now).events());
      assertThat(rendered).as("cycle %d", cycle).isEqualTo(jooq);
    }
    dsl.transaction(
        c -> {
          List<OutboxMessage> batch = statements.claimAndPinPlans(c.dsl(), 6, now).events();
          statements.complete(
              c.dsl(),
              batch.stream().map(OutboxMessage::id).toList(),
              dev.txoutbox.CompletionMode.DELETE,
              now);
        });
    List<OutboxMessage> rest =
        dsl.transactionResult(c -> statements.claimAndPinPlans(c.dsl(), 100, now).events());
    assertThat(rest).hasSize(2).doesNotContainAnyElementsOf(jooq);
    dsl.transaction(
        c ->
            statements.complete(
                c.dsl(),
                rest.stream().map(OutboxMessage::id).toList(),
                dev.txoutbox.CompletionMode.MARK_PROCESSED,
                now));
    List<OutboxMessage> none =
        dsl.transactionResult(c -> statements.claimAndPinPlans(c.dsl(), 100, now).events());
    assertThat(none).isEmpty();
  }

  @Test
  void theClaimTurnsSequentialScansOffForTheRestOfItsTransactionOnly() {
    insertReady(3);
    BatchStatements statements = new BatchStatements();
    OffsetDateTime now = OffsetDateTime.now();
    for (int cycle = 0; cycle < 7; cycle++) { // past the driver's server-prepare threshold
      int claimed = cycle;
      String during =
          dsl.transactionResult(
              c -> {
                assertThat(seqScan(c.dsl())).isEqualTo("on");
                assertThat(statements.claimAndPinPlans(c.dsl(), 2, now).events())
                    .as("cycle %d", claimed)
                    .hasSize(2);
                return seqScan(c.dsl());
              });
      assertThat(during).as("cycle %d", cycle).isEqualTo("off");
    }
    db.execute("DELETE FROM " + db.schema() + ".outbox_events");
    String emptyClaim =
        dsl.transactionResult(
            c -> {
              assertThat(statements.claimAndPinPlans(c.dsl(), 2, now).events()).isEmpty();
              return seqScan(c.dsl());
            });
    assertThat(emptyClaim).isEqualTo("off");
    assertThat(seqScan(dsl)).isEqualTo("on");
  }

  private static String seqScan(DSLContext tx) {
    return tx.fetchValue(DSL.field("current_setting('enable_seqscan')", String.class));
  }

  @Test
  void aLockedDueEventLeavesRoomForAnotherOne() {
    insertWaiting(2, "interval '-1 minute'");
    insertReady(3);

    List<OutboxMessage> claimed =
        dsl.transactionResult(
            outer -> {
              List<OutboxMessage> held =
                  RelayStore.claim(outer.dsl(), 1, OffsetDateTime.now()).events();
              try (var other = db.dataSource().getConnection()) {
                DSLContext second = DSL.using(other, SQLDialect.POSTGRES, dsl.settings());
                List<OutboxMessage> rest =
                    second.transactionResult(
                        c -> RelayStore.claim(c.dsl(), 10, OffsetDateTime.now()).events());
                assertThat(rest).hasSize(4).doesNotContainAnyElementsOf(held);
              }
              return held;
            });
    assertThat(claimed).hasSize(1);
  }

  private record Plan(String text, long rows, long buffers) {}

  private Plan explainClaim() {
    return dsl.transactionResult(
        c -> {
          DSLContext tx = c.dsl();
          var claim =
              RelayStore.claimQuery(tx, RelayStore.MESSAGE_COLUMNS, LIMIT, OffsetDateTime.now());
          // EXPLAIN with options is not part of jOOQ's DSL: a template around the statement.
          List<String> lines =
              tx.resultQuery("explain (analyze, buffers, costs off, timing off) {0}", claim)
                  .fetch(0, String.class);
          String text = String.join("\n", lines);
          Matcher top = Pattern.compile("actual rows=(\\d+)").matcher(lines.get(0));
          long rows = top.find() ? Long.parseLong(top.group(1)) : -1;
          return new Plan(text, rows, PlanFigures.buffers(lines));
        });
  }

  private void insertReady(int n) {
    insert(n, "'ready'", "NULL");
  }

  /** {@code n} events waiting until now + {@code offset} (an SQL interval). */
  private void insertWaiting(int n, String offset) {
    insert(
        n,
        "'waiting-" + offset.replaceAll("[^0-9a-z -]", "").replace("interval ", "") + "'",
        "now() + " + offset);
  }

  private void insert(int n, String aggregate, String retryAfter) {
    // Bulk seeding with generate_series, which the generated model has no statement for.
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, retry_after)"
            + " SELECT gen_random_uuid(), 'order', "
            + aggregate
            + " || '-' || i, 'order.created', '{\"n\": 1}', "
            + retryAfter
            + " FROM generate_series(1, "
            + n
            + ") AS i");
  }

  private void analyze() {
    db.execute("VACUUM ANALYZE " + db.schema() + ".outbox_events");
  }
}
