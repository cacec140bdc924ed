package dev.txoutbox.regressions;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.TestSupport;
import dev.txoutbox.internal.json.Json;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay dead-letters a row it cannot read (headers that are not a JSON object of strings, a
 * payload the server cannot send) with {@code unreadable row: ...}; listing dead letters then read
 * every row's headers and payload again and threw for the whole page, so the one tool an operator
 * needed for that row failed. The listing now returns every row; what could not be read is shown as
 * such, and nothing stored is changed.
 */
class ADeadLetterWithUnreadableHeadersBrokeTheListingTest {

  /** Deeper than the outbox reads headers. */
  private static final int DEEP = Json.MAX_DEPTH + 10;

  private static TestDatabase db;
  private static DSLContext mapped;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("regress_dl_headers");
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  /** A row another tool wrote, an aggregate of its own so the relay reads each one. */
  private static UUID insertPoison(String payloadSql, String headersSql) {
    return TestSupport.insertPoison(db, "poison-" + UUID.randomUUID(), payloadSql, headersSql);
  }

  /** The stored headers and payload sizes as the server sees them, never rendered in full. */
  private static Map<UUID, String> stored() {
    return mapped
        .select(
            OUTBOX_EVENTS.ID,
            DSL.field("md5(headers::text) || ' ' || pg_column_size(payload)", String.class))
        .from(OUTBOX_EVENTS)
        .fetchMap(r -> r.value1(), r -> r.value2());
  }

  @Test
  void everyDeadLetterIsListedAndAnUnreadableOneShowsWhatIsStored() throws Exception {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<UUID> healthy =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .transactionResult(
                tx ->
                    outbox.recordAll(
                        tx.dsl(),
                        List.of(
                            OutboxEvent.builder("order", "h-1", "order.paid")
                                .payload("{\"n\":1}")
                                .header("tenant", "t-1")
                                .build(),
                            OutboxEvent.builder("order", "h-2", "order.paid")
                                .payload("{\"n\":2}")
                                .build())));
    Map<String, UUID> poison = new LinkedHashMap<>();
    poison.put("[]", insertPoison("'{}'", "'[]'"));
    poison.put("null", insertPoison("'{}'", "'null'"));
    poison.put("\"text\"", insertPoison("'{}'", "'\"text\"'"));
    String deep = "{\"a\": " + "[".repeat(DEEP) + "]".repeat(DEEP) + "}";
    poison.put(deep, insertPoison("'{}'", "'" + deep + "'"));
    // Stored in 2 KB, rendered as 1.09 GB: PostgreSQL cannot send it ("out of memory").
    UUID huge =
        insertPoison(
            "(SELECT jsonb_agg(1e131071::numeric) FROM generate_series(1, 8300))",
            "'{\"tenant\":\"t-9\"}'");
    RecordingPublisher publisher =
        new RecordingPublisher().answer(m -> PublishResult.permanent("no route"));
    TestSupport.relayBuilder(db, publisher).build().runOnce();
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull()))
        .as("the relay dead-lettered every row")
        .isEqualTo(7);
    Map<UUID, String> before = stored();
    OutboxAdmin admin = OutboxAdmin.create(db.dataSource(), db.schema());

    List<DeadLetter> listed = admin.deadLetters(null, 100);

    Map<UUID, DeadLetter> byId =
        listed.stream().collect(Collectors.toMap(DeadLetter::id, Function.identity()));
    assertThat(byId).hasSize(7);
    assertThat(byId.get(healthy.get(0)).headers()).containsExactly(Map.entry("tenant", "t-1"));
    assertThat(byId.get(healthy.get(0)).payload()).isEqualTo("{\"n\": 1}");
    assertThat(byId.get(healthy.get(0)).lastError()).isEqualTo("no route");
    assertThat(byId.get(healthy.get(0)).rawHeaders()).isNull();
    assertThat(byId.get(healthy.get(1)).headers()).isEmpty();
    assertThat(byId.get(healthy.get(1)).rawHeaders()).isNull();
    poison.forEach(
        (headers, id) -> {
          DeadLetter d = byId.get(id);
          assertThat(d.headers()).as(headers).isEmpty();
          assertThat(d.rawHeaders()).as(headers).isEqualTo(headers);
          assertThat(d.payload()).as(headers).isEqualTo("{}");
          assertThat(d.lastError()).as(headers).startsWith("unreadable row: ");
        });
    DeadLetter unsendable = byId.get(huge);
    assertThat(unsendable.payload()).isNull();
    assertThat(unsendable.headers()).containsExactly(Map.entry("tenant", "t-9"));
    assertThat(unsendable.rawHeaders()).isNull();
    assertThat(unsendable.lastError()).startsWith("unreadable row: ").contains("out of memory");
    assertThat(admin.deadLetters("order.poison", 100))
        .extracting(DeadLetter::id)
        .containsExactlyInAnyOrderElementsOf(
            listed.stream().map(DeadLetter::id).filter(id -> !healthy.contains(id)).toList());

    // Grouped by the reason the relay recorded; the groups read no headers or payload.
    List<DeadLetterGroup> groups = admin.deadLetterGroups();
    assertThat(
            groups.stream()
                .collect(
                    Collectors.groupingBy(
                        DeadLetterGroup::eventType,
                        Collectors.summingLong(DeadLetterGroup::count))))
        .containsExactlyInAnyOrderEntriesOf(Map.of("order.paid", 2L, "order.poison", 5L));
    assertThat(groups)
        .filteredOn(g -> g.eventType().equals("order.poison"))
        .allMatch(g -> g.sampleError().startsWith("unreadable row: "));
    assertThat(stored()).as("listing changes nothing stored").isEqualTo(before);

    DeadLetterSelector unreadable = DeadLetterSelector.ids(poison.get("[]"), huge);
    assertThat(admin.count(unreadable)).isEqualTo(2);
    assertThat(admin.requeue(unreadable)).isEqualTo(2);
    assertThat(admin.pendingCount()).isEqualTo(2);
    TestSupport.relayBuilder(db, publisher).build().runOnce();
    assertThat(admin.deadLetterCount()).as("dead-lettered again by the relay").isEqualTo(7);
    assertThat(admin.purge(DeadLetterSelector.eventType("order.poison"))).isEqualTo(5);
    assertThat(admin.deadLetters(null, 100))
        .extracting(DeadLetter::id)
        .containsExactlyInAnyOrderElementsOf(healthy);
  }
}
