package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OutboxWriterTest {

  private static TestDatabase db;
  private static DSLContext dsl;
  private static DSLContext mapped;
  private static Table<Record> orders;
  private Outbox outbox;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("writer");
    db.execute("CREATE TABLE " + db.schema() + ".orders (id text primary key)");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    mapped = TestSupport.mapped(db);
    orders = DSL.table(DSL.name(db.schema(), "orders"));
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".orders, " + db.schema() + ".outbox_events");
    outbox = Outbox.builder().schema(db.schema()).build();
  }

  private int orderCount() {
    return dsl.fetchCount(orders);
  }

  private int eventCount() {
    return mapped.fetchCount(OUTBOX_EVENTS);
  }

  @Test
  void commitKeepsBusinessRowAndEvent() {
    UUID id =
        dsl.transactionResult(
            tx -> {
              tx.dsl().insertInto(orders).set(DSL.field("id"), "o-1").execute();
              return outbox.publish(tx.dsl(), "order", "o-1", "order.created", "{\"total\":42}");
            });

    assertThat(orderCount()).isEqualTo(1);
    var row = mapped.selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)).fetchSingle();
    assertThat(row.getAggregateType()).isEqualTo("order");
    assertThat(row.getAggregateId()).isEqualTo("o-1");
    assertThat(row.getEventType()).isEqualTo("order.created");
    assertThat(row.getPayload()).isEqualTo(JSONB.valueOf("{\"total\": 42}"));
    assertThat(row.getAttempts()).isZero();
    assertThat(row.getProcessedAt()).isNull();
    assertThat(row.getRetryAfter()).isNull();
    assertThat(id.version()).isEqualTo(7);
  }

  @Test
  void rollbackRemovesBusinessRowAndEvent() {
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    tx -> {
                      tx.dsl().insertInto(orders).set(DSL.field("id"), "o-2").execute();
                      outbox.publish(tx.dsl(), "order", "o-2", "order.created", "{}");
                      throw new IllegalStateException("business rule failed");
                    }))
        .hasMessageContaining("business rule failed");

    assertThat(orderCount()).isZero();
    assertThat(eventCount()).isZero();
  }

  @Test
  void refusesAutoCommitConnectionsUnlessAllowed() {
    assertThatThrownBy(() -> outbox.publish(dsl, "order", "o-3", "order.created", "{}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("auto-commit")
        .hasMessageContaining("allowAutoCommit");
    assertThat(eventCount()).isZero();

    Outbox standalone = Outbox.builder().schema(db.schema()).allowAutoCommit(true).build();
    standalone.publish(dsl, "order", "o-3", "order.created", "{}");
    assertThat(eventCount()).isEqualTo(1);
  }

  @Test
  void publishAllWritesEveryEventInOrderInOneCall() {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 7_500; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{\"i\":" + i + "}"));
    }

    List<UUID> ids = dsl.transactionResult(tx -> outbox.publishAll(tx.dsl(), events));

    assertThat(ids).hasSize(7_500).doesNotHaveDuplicates();
    List<UUID> bySeq =
        mapped
            .select(OUTBOX_EVENTS.ID)
            .from(OUTBOX_EVENTS)
            .orderBy(OUTBOX_EVENTS.SEQ)
            .fetch(OUTBOX_EVENTS.ID);
    assertThat(bySeq).isEqualTo(ids);
  }

  @Test
  void acceptsEveryPayloadFormAndStoresHeadersAndDelay() {
    Instant later = Instant.parse("2030-01-01T00:00:00Z");
    Outbox withSerializer =
        Outbox.builder()
            .schema(db.schema())
            .payloadSerializer(p -> "{\"serialised\":\"" + p + "\"}")
            .headersProvider(() -> Map.of("traceparent", "00-abc-def-01", "tenant", "provided"))
            .build();

    List<UUID> ids =
        dsl.transactionResult(
            tx ->
                withSerializer.publishAll(
                    tx.dsl(),
                    List.of(
                        OutboxEvent.of("a", "1", "t", "[1,2]"),
                        OutboxEvent.of(
                            "a", "2", "t", "{\"b\":true}".getBytes(StandardCharsets.UTF_8)),
                        OutboxEvent.of("a", "3", "t", JSONB.valueOf("\"text\"")),
                        OutboxEvent.builder("a", "4", "t")
                            .payload(12345L)
                            .header("tenant", "own")
                            .notBefore(later)
                            .build())));

    var last =
        mapped
            .select(OUTBOX_EVENTS.PAYLOAD, OUTBOX_EVENTS.HEADERS, OUTBOX_EVENTS.RETRY_AFTER)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(ids.get(3)))
            .fetchSingle();
    assertThat(last.value1().data()).isEqualTo("{\"serialised\": \"12345\"}");
    assertThat(last.value2().data()).contains("\"tenant\": \"own\"").contains("traceparent");
    assertThat(last.value3().toInstant()).isEqualTo(later);
    assertThat(
            mapped
                .select(OUTBOX_EVENTS.PAYLOAD)
                .from(OUTBOX_EVENTS)
                .orderBy(OUTBOX_EVENTS.SEQ)
                .fetch(r -> r.value1().data()))
        .containsExactly("[1, 2]", "{\"b\": true}", "\"text\"", "{\"serialised\": \"12345\"}");
  }

  @Test
  void transactionListenerWakesAfterCommitOnlyWhenEventsWereWritten() {
    List<String> wakeUps = new ArrayList<>();
    Outbox waking =
        Outbox.builder().schema(db.schema()).afterCommit(() -> wakeUps.add("woken")).build();
    DSLContext listening = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    listening.configuration().set(waking.transactionListener());

    listening.transaction(tx -> tx.dsl().insertInto(orders).set(DSL.field("id"), "x").execute());
    assertThat(wakeUps).isEmpty();

    listening.transaction(
        tx -> {
          tx.dsl()
              .transaction(
                  nested -> waking.publish(nested.dsl(), "order", "x", "order.created", "{}"));
          assertThat(wakeUps).as("nested commit is not the end").isEmpty();
        });
    assertThat(wakeUps).containsExactly("woken");

    assertThatThrownBy(
            () ->
                listening.transaction(
                    tx -> {
                      waking.publish(tx.dsl(), "order", "y", "order.created", "{}");
                      throw new IllegalStateException("rolled back");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(wakeUps).containsExactly("woken");
  }

  // ---- bad input: each gets its error naming the field and limit, and nothing is written ----

  private void rejects(Consumer<DSLContext> call, String... messageParts) {
    assertThatThrownBy(() -> dsl.transaction(tx -> call.accept(tx.dsl())))
        .isInstanceOfAny(IllegalArgumentException.class, NullPointerException.class)
        .satisfies(
            e -> {
              for (String part : messageParts) {
                assertThat(e).hasMessageContaining(part);
              }
            });
    assertThat(eventCount()).isZero();
  }

  @Test
  void rejectsNullAndBlankTypesAndIds() {
    rejects(tx -> outbox.publish(tx, null, "1", "t", "{}"), "aggregateType");
    rejects(tx -> outbox.publish(tx, "a", null, "t", "{}"), "aggregateId");
    rejects(tx -> outbox.publish(tx, "a", "1", null, "{}"), "eventType");
    rejects(tx -> outbox.publish(tx, " ", "1", "t", "{}"), "event.aggregateType", "blank");
    rejects(tx -> outbox.publish(tx, "a", "", "t", "{}"), "event.aggregateId", "blank");
    rejects(tx -> outbox.publish(tx, "a", "1", "\t", "{}"), "event.eventType", "blank");
    rejects(tx -> outbox.publish(tx, "a", "1", "t", null), "payload");
  }

  @Test
  void rejectsValuesBeyondColumnLimits() {
    String tooLong = "x".repeat(256);
    rejects(tx -> outbox.publish(tx, tooLong, "1", "t", "{}"), "event.aggregateType", "255", "256");
    rejects(tx -> outbox.publish(tx, "a", tooLong, "t", "{}"), "event.aggregateId", "255");
    rejects(tx -> outbox.publish(tx, "a", "1", tooLong, "{}"), "event.eventType", "255");
    rejects(tx -> outbox.publish(tx, "a", "1\u0000", "t", "{}"), "event.aggregateId", "U+0000");
    // 255 characters of a 3-byte character are fine: the limit is in characters, as in varchar.
    dsl.transaction(tx -> outbox.publish(tx.dsl(), "\u20ac".repeat(255), "1", "t", "{}"));
    assertThat(eventCount()).isEqualTo(1);
  }

  @Test
  void rejectsInvalidOrOversizedPayloads() {
    rejects(tx -> outbox.publish(tx, "a", "1", "t", "{\"a\":"), "event.payload", "not valid JSON");
    rejects(tx -> outbox.publish(tx, "a", "1", "t", "{'a':1}"), "event.payload", "not valid JSON");
    rejects(tx -> outbox.publish(tx, "a", "1", "t", "{} {}"), "event.payload", "not valid JSON");
    rejects(tx -> outbox.publish(tx, "a", "1", "t", "\"\\u0000\""), "event.payload", "u0000");
    rejects(
        tx -> outbox.publish(tx, "a", "1", "t", new byte[] {(byte) 0xC3, (byte) 0x28}),
        "event.payload",
        "UTF-8");
    rejects(
        tx -> outbox.publish(tx, "a", "1", "t", new Object()),
        "event.payload",
        "payloadSerializer");
    Outbox small = Outbox.builder().schema(db.schema()).maxPayloadBytes(10).build();
    rejects(
        tx -> small.publish(tx, "a", "1", "t", "\"\u00e9\u00e9\u00e9\u00e9\u00e9\""),
        "event.payload",
        "at most 10 bytes",
        "12");
    Outbox failing =
        Outbox.builder()
            .schema(db.schema())
            .payloadSerializer(
                p -> {
                  throw new IllegalStateException("cannot map");
                })
            .build();
    rejects(tx -> failing.publish(tx, "a", "1", "t", 1), "event.payload", "cannot map");
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void rejectsHeadersThatAreNotStringsOrTooLarge() {
    Map raw = new HashMap();
    raw.put("count", 3);
    rejects(
        tx -> outbox.publish(tx, new OutboxEvent("a", "1", "t", "{}", raw, null)),
        "event.headers['count']",
        "must be a string",
        "java.lang.Integer");
    Map rawName = new HashMap();
    rawName.put(7, "x");
    rejects(
        tx -> outbox.publish(tx, new OutboxEvent("a", "1", "t", "{}", rawName, null)),
        "event.headers names must be strings");
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("k", null);
    rejects(
        tx -> outbox.publish(tx, new OutboxEvent("a", "1", "t", "{}", nullValue, null)),
        "event.headers['k']",
        "null");
    rejects(
        tx ->
            outbox.publish(
                tx,
                OutboxEvent.builder("a", "1", "t")
                    .payload("{}")
                    .header("k", "v".repeat(8193))
                    .build()),
        "event.headers['k']",
        "8192");
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i < 65; i++) {
      many.put("h" + i, "v");
    }
    rejects(
        tx ->
            outbox.publish(
                tx, OutboxEvent.builder("a", "1", "t").payload("{}").headers(many).build()),
        "event.headers",
        "at most 64",
        "65");
  }

  @Test
  void oneBadEventInABatchWritesNothing() {
    rejects(
        tx ->
            outbox.publishAll(
                tx,
                List.of(
                    OutboxEvent.of("a", "1", "t", "{}"),
                    OutboxEvent.of("a", "2", "t", "{}"),
                    OutboxEvent.of("a", "3", "t", "nope"))),
        "events[2].payload",
        "not valid JSON");
  }

  @Test
  void rejectsBadBuilderSettings() {
    assertThatThrownBy(() -> Outbox.builder().maxPayloadBytes(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPayloadBytes")
        .hasMessageContaining("268435455");
    assertThatThrownBy(() -> Outbox.builder().schema("Bad-Name").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema");
  }
}
