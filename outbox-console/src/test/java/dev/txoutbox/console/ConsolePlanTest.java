package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The plans of the pages' own queries on an outbox of 60,000 processed, 5,000 pending and 200 dead
 * events: each walks an index (the primary key for the event list, the dead letters' index for a
 * group), never the table, and the list reads at most one window of rows however rare its matches.
 */
class ConsolePlanTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static final Pattern BUFFERS =
      Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

  private static DSLContext dsl;
  private static EventQueries queries;
  private static final OffsetDateTime NOW = OffsetDateTime.now(ZoneOffset.UTC);

  @BeforeAll
  static void seed() {
    String table = db.schema() + ".outbox_events";
    String insert =
        "insert into "
            + table
            + " (id, aggregate_type, aggregate_id, event_type, payload, attempts, processed_at,"
            + " dead_lettered_at, last_error) select gen_random_uuid(), 'order', g::text, ";
    db.execute(insert + "'T', '{}', 0, now(), null, null from generate_series(1, 60000) g");
    db.execute(insert + "'T', '{}', 0, null, null, null from generate_series(1, 5000) g");
    db.execute(
        insert
            + "'T', '{}', 5, null, now(), 'Timeout after ' || g || ' ms'"
            + " from generate_series(1, 200) g");
    db.execute("analyze " + table);
    dsl =
        DSL.using(
            db.dataSource(), SQLDialect.POSTGRES, OutboxTables.in(db.schema()).settings(null));
    queries = new EventQueries(dsl, OutboxTables.in(db.schema()));
  }

  @Test
  void theEventListWalksThePrimaryKeyNewestFirstAndReadsAtMostOneWindow() {
    String plan = explain(queries.listQuery(EventFilter.parse("state=dead&error=never"), NOW));

    assertThat(plan)
        .contains("Index Scan Backward using outbox_events_pkey")
        .doesNotContain("Seq Scan")
        .doesNotContain("Sort");
    assertThat(rowsOf(plan, "Index Scan Backward")).isEqualTo(EventQueries.WINDOW);
    System.out.printf("event list, rare filter: %d buffers%n", buffers(plan));
  }

  @Test
  void theNextPageStartsAtTheCursorOnThePrimaryKey() {
    UUID cursor = UUID.fromString("80000000-0000-4000-8000-000000000000");
    String plan =
        explain(queries.listQuery(EventFilter.parse("after=" + cursor + "&limit=50"), NOW));

    assertThat(plan)
        .contains("Index Scan Backward using outbox_events_pkey")
        .contains("Index Cond: (id < ")
        .doesNotContain("Seq Scan");
  }

  @Test
  void theWindowsEndIsReadFromThePrimaryKeyAlone() {
    String plan = explain(queries.windowQuery(EventFilter.parse("")));

    assertThat(plan)
        .contains("Index Only Scan Backward using outbox_events_pkey")
        .doesNotContain("Seq Scan");
  }

  @Test
  void anEventByIdIsOneProbeOfThePrimaryKey() {
    String plan =
        explain(queries.listQuery(EventFilter.parse("eventId=" + UUID.randomUUID()), NOW));

    assertThat(plan).contains("Index Scan using outbox_events_pkey").doesNotContain("Seq Scan");
  }

  @Test
  void aGroupIsCountedAlongTheDeadLettersIndex() {
    DeadLetterSelection group = new DeadLetterSelection("T", "Timeout after ? ms", Set.of());

    String plan = explain(group.groupCountQuery());

    assertThat(plan).contains("outbox_events_dead_idx").doesNotContain("Seq Scan");
  }

  private static String explain(Query query) {
    return dsl.fetch("explain (analyze, buffers) " + dsl.renderInlined(query)).stream()
        .map(r -> String.valueOf(r.get(0)))
        .collect(Collectors.joining("\n"));
  }

  private static long rowsOf(String plan, String node) {
    Matcher m =
        Pattern.compile(Pattern.quote(node) + ".*actual time=\\S+ rows=(\\d+)").matcher(plan);
    if (!m.find()) {
      throw new AssertionError("no " + node + " in\n" + plan);
    }
    return Long.parseLong(m.group(1));
  }

  private static long buffers(String plan) {
    Matcher m = BUFFERS.matcher(plan);
    if (!m.find()) {
      throw new AssertionError("no buffers in\n" + plan);
    }
    return (m.group(1) == null ? 0 : Long.parseLong(m.group(1)))
        + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
  }
}
