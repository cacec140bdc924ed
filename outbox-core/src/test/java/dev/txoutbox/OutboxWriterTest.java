package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.internal.writer.DefaultOutbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OutboxWriterTest {

  @RegisterExtension static final WriterFixture fx = new WriterFixture("writer");
  private DSLContext dsl;
  private DSLContext mapped;
  private Table<Record> orders;
  private Outbox outbox;

  @BeforeEach
  void writer() {
    dsl = fx.dsl;
    mapped = fx.mapped;
    orders = fx.orders;
    outbox = fx.writer().build();
  }

  private int orderCount() {
    return dsl.fetchCount(orders);
  }

  private int eventCount() {
    return fx.eventCount();
  }

  @Test
  void commitKeepsBusinessRowAndEvent() {
    UUID id =
        dsl.transactionResult(
            tx -> {
              tx.dsl().insertInto(orders).set(DSL.field("id"), "o-1").execute();
              return outbox.record(tx.dsl(), "order", "o-1", "order.created", "{\"total\":42}");
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
  void theCallersRenderMappingAndRenderSchemaDoNotMoveTheOutboxTable() {
    String schema = fx.db.schema();
    // The caller's settings would send the writer's table elsewhere, or leave it unqualified.
    org.jooq.conf.Settings moving =
        new org.jooq.conf.Settings()
            .withRenderMapping(
                new org.jooq.conf.RenderMapping()
                    .withSchemata(
                        new org.jooq.conf.MappedSchema()
                            .withInput(schema)
                            .withOutput("no_such_schema")));
    org.jooq.conf.Settings unqualified = new org.jooq.conf.Settings().withRenderSchema(false);
    for (org.jooq.conf.Settings settings : List.of(moving, unqualified)) {
      DSLContext caller = DSL.using(fx.db.dataSource(), SQLDialect.POSTGRES, settings);
      caller.transaction(
          tx -> outbox.record(tx.dsl(), "order", "o-1", "order.created", "{\"total\":42}"));
    }

    assertThat(eventCount()).isEqualTo(2);
  }

  @Test
  void rollbackRemovesBusinessRowAndEvent() {
    assertThatThrownBy(
            () ->
                dsl.transaction(
                    tx -> {
                      tx.dsl().insertInto(orders).set(DSL.field("id"), "o-2").execute();
                      outbox.record(tx.dsl(), "order", "o-2", "order.created", "{}");
                      throw new IllegalStateException("business rule failed");
                    }))
        .hasMessageContaining("business rule failed");

    assertThat(orderCount()).isZero();
    assertThat(eventCount()).isZero();
  }

  @Test
  void refusesAutoCommitConnectionsUnlessAllowed() {
    assertThatThrownBy(() -> outbox.record(dsl, "order", "o-3", "order.created", "{}"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("auto-commit")
        .hasMessageContaining("allowAutoCommit");
    assertThat(eventCount()).isZero();

    Outbox standalone = fx.writer().allowAutoCommit(true).build();
    standalone.record(dsl, "order", "o-3", "order.created", "{}");
    assertThat(eventCount()).isEqualTo(1);
  }

  @Test
  void recordAllInAutoCommitModeWritesAllItsStatementsOrNone() {
    Outbox standalone = fx.writer().allowAutoCommit(true).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < DefaultOutbox.MAX_ROWS_PER_STATEMENT + 1; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{}"));
    }
    // The last event, alone in the second statement, breaks a constraint of this table only.
    events.set(events.size() - 1, OutboxEvent.of("order", "poison", "order.created", "{}"));
    fx.db.execute(
        "ALTER TABLE "
            + fx.db.schema()
            + ".outbox_events ADD CONSTRAINT no_poison CHECK (aggregate_id <> 'poison')");
    try {
      assertThatThrownBy(() -> standalone.recordAll(dsl, events))
          .isInstanceOf(DataAccessException.class)
          .hasMessageContaining("no_poison");
      assertThat(eventCount()).as("the first statement's 5,000 rows are rolled back").isZero();

      events.set(events.size() - 1, OutboxEvent.of("order", "fine", "order.created", "{}"));
      assertThat(standalone.recordAll(dsl, events)).hasSize(events.size());
      assertThat(eventCount()).isEqualTo(events.size());
      // The pooled connection went back in auto-commit mode.
      assertThat(dsl.connectionResult(Connection::getAutoCommit)).isTrue();
    } finally {
      fx.db.execute("ALTER TABLE " + fx.db.schema() + ".outbox_events DROP CONSTRAINT no_poison");
    }
  }

  @Test
  void refusesAContextThatTakesAPooledConnectionPerStatementAndKeepsTheTransactionUsable() {
    // A pool with autoCommit=false: the guard on auto-commit alone does not catch this mistake.
    HikariConfig config = new HikariConfig();
    config.setDataSource(fx.db.dataSource());
    config.setAutoCommit(false);
    config.setMaximumPoolSize(3);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      DSLContext outer = DSL.using(pool, org.jooq.SQLDialect.POSTGRES);
      outer.transaction(
          tx -> {
            tx.dsl().insertInto(orders).set(fx.orderId, "invoice-1").execute();
            assertThatThrownBy(
                    () -> outbox.record(outer, "invoice", "invoice-1", "invoice.created", "{}"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not bound to a transaction")
                .hasMessageContaining("outbox.record(tx.dsl(), ...)")
                .hasMessageContaining("externallyManagedTransactions(true)");
            // The caller's transaction is untouched and the right call works.
            outbox.record(tx.dsl(), "invoice", "invoice-1", "invoice.created", "{}");
          });
      assertThat(fx.orderIds()).containsExactly("invoice-1");
      assertThat(eventCount()).isEqualTo(1);

      // Even with allowAutoCommit: this connection is not in auto-commit mode, nobody commits it.
      Outbox standalone = fx.writer().allowAutoCommit(true).build();
      assertThatThrownBy(() -> standalone.record(outer, "invoice", "2", "invoice.created", "{}"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("not bound to a transaction");
      assertThat(eventCount()).isEqualTo(1);
    }
  }

  @Test
  void externallyManagedTransactionsTrustAThreadBoundDataSource() throws Exception {
    // Stands in for Spring's TransactionAwareDataSourceProxy: every getConnection() on this thread
    // returns the one connection of the transaction that the test commits itself.
    try (Connection bound = fx.db.dataSource().getConnection()) {
      bound.setAutoCommit(false);
      DSLContext managed = DSL.using(ThreadBound.dataSource(bound), org.jooq.SQLDialect.POSTGRES);
      assertThatThrownBy(() -> outbox.record(managed, "order", "m-1", "order.created", "{}"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("externallyManagedTransactions(true)");

      Outbox trusting = fx.writer().externallyManagedTransactions(true).build();
      managed.insertInto(orders).set(fx.orderId, "m-1").execute();
      UUID id = trusting.record(managed, "order", "m-1", "order.created", "{}");
      assertThat(eventCount()).as("not committed yet").isZero();
      bound.commit();
      assertThat(fx.orderIds()).containsExactly("m-1");
      assertThat(fx.payload(id)).isEqualTo("{}");

      // Outside its transaction such a data source hands out auto-commit connections: refused.
      bound.setAutoCommit(true);
      assertThatThrownBy(() -> trusting.record(managed, "order", "m-2", "order.created", "{}"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("auto-commit");
    }
  }

  @Test
  void recordAllWritesEveryEventInOrderInOneCall() {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 7_500; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{\"i\":" + i + "}"));
    }

    List<UUID> ids = dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));

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
        fx.writer()
            .payloadSerializer(p -> "{\"serialised\":\"" + p + "\"}")
            .headersProvider(() -> Map.of("traceparent", "00-abc-def-01", "tenant", "provided"))
            .build();

    List<UUID> ids =
        dsl.transactionResult(
            tx ->
                withSerializer.recordAll(
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
    Outbox waking = fx.writer().afterCommit(() -> wakeUps.add("woken")).build();
    DSLContext listening = DSL.using(fx.db.dataSource(), org.jooq.SQLDialect.POSTGRES);
    listening.configuration().set(waking.transactionListener());

    listening.transaction(tx -> tx.dsl().insertInto(orders).set(DSL.field("id"), "x").execute());
    assertThat(wakeUps).isEmpty();

    listening.transaction(
        tx -> {
          tx.dsl()
              .transaction(
                  nested -> waking.record(nested.dsl(), "order", "x", "order.created", "{}"));
          assertThat(wakeUps).as("nested commit is not the end").isEmpty();
        });
    assertThat(wakeUps).containsExactly("woken");

    assertThatThrownBy(
            () ->
                listening.transaction(
                    tx -> {
                      waking.record(tx.dsl(), "order", "y", "order.created", "{}");
                      throw new IllegalStateException("rolled back");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(wakeUps).containsExactly("woken");
  }

  // ---- bad input: each gets its error naming the field and limit, and nothing is written ----

  @Test
  void rejectsNullAndBlankTypesAndIds() {
    Class<NullPointerException> npe = NullPointerException.class;
    Class<IllegalArgumentException> iae = IllegalArgumentException.class;
    fx.rejects(npe, tx -> outbox.record(tx, null, "1", "t", "{}"), "aggregateType");
    fx.rejects(npe, tx -> outbox.record(tx, "a", null, "t", "{}"), "aggregateId");
    fx.rejects(npe, tx -> outbox.record(tx, "a", "1", null, "{}"), "eventType");
    fx.rejects(iae, tx -> outbox.record(tx, " ", "1", "t", "{}"), "event.aggregateType", "blank");
    fx.rejects(iae, tx -> outbox.record(tx, "a", "", "t", "{}"), "event.aggregateId", "blank");
    fx.rejects(iae, tx -> outbox.record(tx, "a", "1", "\t", "{}"), "event.eventType", "blank");
    fx.rejects(npe, tx -> outbox.record(tx, "a", "1", "t", null), "payload");
  }

  @Test
  void rejectsInvalidOrOversizedPayloads() {
    Class<IllegalArgumentException> iae = IllegalArgumentException.class;
    fx.rejects(iae, tx -> outbox.record(tx, "a", "1", "t", "{\"a\":"), "event.payload", "JSON");
    fx.rejects(iae, tx -> outbox.record(tx, "a", "1", "t", "{'a':1}"), "event.payload", "JSON");
    fx.rejects(iae, tx -> outbox.record(tx, "a", "1", "t", "{} {}"), "event.payload", "JSON");
    fx.rejects(iae, tx -> outbox.record(tx, "a", "1", "t", "\"\\u0000\""), "payload", "u0000");
    fx.rejects(
        iae,
        tx -> outbox.record(tx, "a", "1", "t", new byte[] {(byte) 0xC3, (byte) 0x28}),
        "event.payload",
        "UTF-8");
    fx.rejects(
        iae,
        tx -> outbox.record(tx, "a", "1", "t", new Object()),
        "event.payload",
        "payloadSerializer");
    Outbox small = fx.writer().maxPayloadBytes(10).build();
    fx.rejects(
        iae,
        tx -> small.record(tx, "a", "1", "t", "\"\u00e9\u00e9\u00e9\u00e9\u00e9\""),
        "event.payload",
        "at most 10 bytes",
        "12");
    Outbox failing =
        fx.writer()
            .payloadSerializer(
                p -> {
                  throw new IllegalStateException("cannot map");
                })
            .build();
    fx.rejects(iae, tx -> failing.record(tx, "a", "1", "t", 1), "event.payload", "cannot map");
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void rejectsHeadersThatAreNotStringsOrTooMany() {
    Class<IllegalArgumentException> iae = IllegalArgumentException.class;
    Map raw = new HashMap();
    raw.put("count", 3);
    fx.rejects(
        iae,
        tx -> outbox.record(tx, new OutboxEvent("a", "1", "t", "{}", raw, null)),
        "event.headers['count']",
        "must be a string",
        "java.lang.Integer");
    Map rawName = new HashMap();
    rawName.put(7, "x");
    fx.rejects(
        iae,
        tx -> outbox.record(tx, new OutboxEvent("a", "1", "t", "{}", rawName, null)),
        "event.headers names must be strings");
    Map<String, String> nullValue = new HashMap<>();
    nullValue.put("k", null);
    fx.rejects(
        iae,
        tx -> outbox.record(tx, new OutboxEvent("a", "1", "t", "{}", nullValue, null)),
        "event.headers['k']",
        "null");
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i < 65; i++) {
      many.put("h" + i, "v");
    }
    fx.rejects(
        iae,
        tx ->
            outbox.record(
                tx, OutboxEvent.builder("a", "1", "t").payload("{}").headers(many).build()),
        "event.headers",
        "at most 64",
        "65");
  }

  @Test
  void oneBadEventInABatchWritesNothing() {
    fx.rejects(
        IllegalArgumentException.class,
        tx ->
            outbox.recordAll(
                tx,
                List.of(
                    OutboxEvent.of("a", "1", "t", "{}"),
                    OutboxEvent.of("a", "2", "t", "{}"),
                    OutboxEvent.of("a", "3", "t", "nope"))),
        "events[2].payload",
        "must be valid JSON but was not");
  }

  @Test
  void rejectsBadBuilderSettings() {
    assertThatThrownBy(() -> Outbox.builder().maxPayloadBytes(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxPayloadBytes must be between 1 and 41943040")
        .hasMessageContaining("but was 0");
    assertThatThrownBy(
            () ->
                Outbox.builder()
                    .maxPayloadBytes(Outbox.Builder.MAX_PAYLOAD_BYTES_LIMIT + 1)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("41943040")
        .hasMessageContaining("but was 41943041");
    assertThat(Outbox.builder().maxPayloadBytes(Outbox.Builder.MAX_PAYLOAD_BYTES_LIMIT).build())
        .isNotNull();
    assertThatThrownBy(() -> Outbox.builder().schema("Bad-Name").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema");
  }
}
