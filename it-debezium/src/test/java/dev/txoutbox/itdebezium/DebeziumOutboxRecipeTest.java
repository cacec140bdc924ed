package dev.txoutbox.itdebezium;

import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.mapping;
import static java.util.stream.Collectors.toList;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.LogicalServer;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The recipe of docs/debezium.md, run: events recorded by our writer, read from the WAL by
 * Debezium's embedded engine with its PostgreSQL connector, routed by the Outbox Event Router
 * configured from {@code debezium-outbox.properties} alone (plus connection settings), and the
 * cleanup and switch-back statements of the recipe. The engine hands over the records after the
 * transformation, so no Kafka broker is needed: what is asserted is what Kafka Connect would write.
 */
class DebeziumOutboxRecipeTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SLOT = "txoutbox_debezium";

  /** The header names the recipe gives each message, in the order the router adds them. */
  private static final List<String> HEADER_NAMES =
      List.of(
          "id",
          "outbox-event-id",
          "outbox-event-type",
          "outbox-aggregate-type",
          "outbox-aggregate-id",
          "outbox-created-at",
          "outbox-headers");

  /** A JSON string's body with escapes, and the text it means. */
  private static final String TRICKY_JSON =
      "quotes \\\" and ' and \\\\ backslash, a \\n newline, a \\u0001 control, ünïcødé, 日本語, 🚀";

  private static final String TRICKY_TEXT =
      "quotes \" and ' and \\ backslash, a \n newline, a \u0001 control, ünïcødé, 日本語, 🚀";

  /** The test JVM's embedded PostgreSQL with {@code wal_level=logical}. */
  private static final LogicalServer SERVER = LogicalServer.shared();

  private static DSLContext dsl;
  private static final Outbox OUTBOX = Outbox.create();

  @BeforeAll
  static void schemaAndPublication() {
    OutboxSchema.migrate(SERVER.dataSource(), OutboxTables.defaults());
    SERVER.execute(resource("debezium-publication.sql"));
    dsl = DSL.using(SERVER.dataSource(), SQLDialect.POSTGRES);
  }

  @Test
  void theEmbeddedEngineRoutesEachCommittedEventOnceAsThePublishersWouldAndTheCleanupIsSilent()
      throws Exception {
    List<SourceRecord> routed = new CopyOnWriteArrayList<>();
    AtomicReference<Throwable> engineFailure = new AtomicReference<>();
    RunningEngine running = RunningEngine.start(routed, engineFailure);
    try {
      List<UUID> first =
          dsl.transactionResult(
              tx ->
                  OUTBOX.recordAll(
                      tx.dsl(),
                      List.of(
                          OutboxEvent.builder("order", "A-1", "order.created")
                              .payload(
                                  "{\"id\":\"A-1\",\"total\":42.50,\"big\":12345678901234567890,"
                                      + "\"lines\":[{\"sku\":\"x\",\"qty\":2}],\"note\":null}")
                              .header(
                                  "traceparent",
                                  "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
                              .build(),
                          OutboxEvent.builder("invoice", "I-1", "invoice.issued")
                              .payload(
                                  "{\"a\":{\"b\":{\"c\":[1,[2,[3,{\"d\":true}]]]}},\"empty\":{},\"none\":[]}")
                              .build(),
                          OutboxEvent.builder("order", "ä/ö \"q\" 🚀", "order.created")
                              .payload("{\"text\":\"" + TRICKY_JSON + "\"}")
                              .headers(
                                  Map.of(
                                      "x-quote\"d", "va'l\"ue\\",
                                      "emoji 🚀", "✓ ünïcødé",
                                      "json-looking", "{\"not\":\"parsed\"}"))
                              .build())));
      dsl.transaction(
          tx -> OUTBOX.record(tx.dsl(), "order", "A-1", "order.paid", "[\"a\",1,2.5,false]"));
      assertThatThrownBy(
              () ->
                  dsl.transaction(
                      tx -> {
                        OUTBOX.record(tx.dsl(), "order", "A-1", "order.cancelled", "{}");
                        throw new IllegalStateException("rolled back on purpose");
                      }))
          .hasMessage("rolled back on purpose");
      dsl.transaction(tx -> OUTBOX.record(tx.dsl(), "order", "A-1", "order.shipped", "\"text\""));
      List<Row> written = rows();
      assertThat(written).hasSize(5);

      // The recipe's cleanup deletes an event older than 7 days and nothing else; neither that
      // UPDATE nor the DELETE becomes a message (the publication publishes inserts only).
      UUID aged = first.get(2);
      assertThat(SERVER.execute(ageSql(aged))).isEqualTo(1);
      assertThat(SERVER.execute(resource("debezium-cleanup.sql"))).isEqualTo(1);
      assertThat(rows()).extracting(Row::id).doesNotContain(aged).hasSize(4);

      UUID marker =
          dsl.transactionResult(
              tx -> OUTBOX.record(tx.dsl(), "order", "A-1", "order.delivered", "{\"last\":1}"));
      List<Row> expected = new ArrayList<>(written);
      expected.add(rows().get(4));
      assertThat(expected.get(5).id()).isEqualTo(marker);

      awaitEngine(
          engineFailure,
          () ->
              routed.stream()
                  .anyMatch(r -> marker.toString().equals(header(r, "outbox-event-id"))));

      // One record per committed event, nothing for the rolled-back one, the update or the delete,
      // in commit order (and so in order per aggregate).
      assertThat(routed)
          .extracting(r -> header(r, "outbox-event-id"))
          .containsExactlyElementsOf(expected.stream().map(row -> row.id().toString()).toList());
      assertThat(
              perAggregate(
                  routed, r -> header(r, "outbox-aggregate-id"), r -> header(r, "outbox-event-id")))
          .isEqualTo(perAggregate(expected, Row::aggregateId, row -> row.id().toString()));
      for (int i = 0; i < expected.size(); i++) {
        assertRouted(routed.get(i), expected.get(i));
      }
      // The payload the writer was given, unchanged in meaning.
      assertThat(JSON.readTree((String) routed.get(2).value()).get("text").asText())
          .isEqualTo(TRICKY_TEXT);
      assertThat(JSON.readTree(header(routed.get(2), "outbox-headers")))
          .isEqualTo(
              JSON.readTree(
                  "{\"x-quote\\\"d\":\"va'l\\\"ue\\\\\",\"emoji 🚀\":\"✓ ünïcødé\","
                      + "\"json-looking\":\"{\\\"not\\\":\\\"parsed\\\"}\"}"));
    } finally {
      running.close();
    }
  }

  @Test
  void switchingBackMarksTheDeliveredIdsAndLeavesAnEventCommittedAfterTheConnectorStopped()
      throws Exception {
    List<SourceRecord> routed = new CopyOnWriteArrayList<>();
    AtomicReference<Throwable> engineFailure = new AtomicReference<>();
    List<UUID> ours = new ArrayList<>();
    RunningEngine running = RunningEngine.start(routed, engineFailure);
    try (Connection late = SERVER.dataSource().getConnection()) {
      late.setAutoCommit(false);
      // A transaction that begins before the last delivered event and commits after the stop.
      UUID lateId =
          OUTBOX.record(DSL.using(late, SQLDialect.POSTGRES), "order", "L-1", "late", "{}");
      ours.add(lateId);
      UUID delivered =
          dsl.transactionResult(tx -> OUTBOX.record(tx.dsl(), "order", "D-1", "delivered", "{}"));
      ours.add(delivered);
      awaitEngine(
          engineFailure,
          () ->
              routed.stream()
                  .anyMatch(r -> delivered.toString().equals(header(r, "outbox-event-id"))));
      running.close();
      late.commit();

      // Marking by time would take the late event: its created_at is its transaction's start.
      OffsetDateTime lastCreatedAt =
          OffsetDateTime.parse(header(routed.get(routed.size() - 1), "outbox-created-at"));
      assertThat(rows())
          .filteredOn(row -> row.id().equals(lateId))
          .singleElement()
          .matches(
              row -> !row.createdAt().isAfter(lastCreatedAt), "created before the last message");
      // The recipe's statement, with the ids the consumer side received.
      List<String> deliveredIds = routed.stream().map(r -> header(r, "outbox-event-id")).toList();
      assertThat(deliveredIds).contains(delivered.toString()).doesNotContain(lateId.toString());
      String switchBack =
          resource("debezium-switch-back.sql")
              .replace(":'delivered_ids'", "'{" + String.join(",", deliveredIds) + "}'");
      assertThat(SERVER.execute(switchBack)).isEqualTo(deliveredIds.size());

      assertThat(pendingIds()).contains(lateId).doesNotContain(delivered);
    } finally {
      running.close();
      // Plain SQL: this test's rows out of the table the other test counts.
      SERVER.execute(
          "DELETE FROM public.outbox_events WHERE id IN ('"
              + String.join("','", ours.stream().map(UUID::toString).toList())
              + "')");
    }
  }

  // Plain SQL, like the recipe's own statements: what the txoutbox relay would find pending.
  private static List<UUID> pendingIds() {
    return dsl.fetch("SELECT id FROM public.outbox_events WHERE processed_at IS NULL")
        .getValues(0, UUID.class);
  }

  /** The embedded engine on the recipe's configuration, routing into a list; closed once. */
  private static final class RunningEngine implements AutoCloseable {
    private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private boolean closed;

    private RunningEngine(DebeziumEngine<RecordChangeEvent<SourceRecord>> engine) {
      this.engine = engine;
    }

    /** Started and streaming: {@code snapshot.mode=no_data} sends only what commits from now. */
    static RunningEngine start(List<SourceRecord> routed, AtomicReference<Throwable> failure) {
      RunningEngine running =
          new RunningEngine(
              DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                  .using(engineConfig())
                  .notifying(
                      (records, committer) -> {
                        for (RecordChangeEvent<SourceRecord> r : records) {
                          routed.add(r.record());
                          committer.markProcessed(r);
                        }
                        committer.markBatchFinished();
                      })
                  .using(
                      (DebeziumEngine.CompletionCallback)
                          (success, message, error) -> {
                            if (!success) {
                              failure.set(
                                  error != null ? error : new IllegalStateException(message));
                            }
                          })
                  .build());
      running.executor.execute(running.engine);
      awaitEngine(failure, DebeziumOutboxRecipeTest::slotIsStreaming);
      return running;
    }

    @Override
    public void close() throws IOException, InterruptedException {
      if (closed) {
        return;
      }
      closed = true;
      engine.close();
      executor.shutdown();
      assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).as("engine stopped").isTrue();
    }
  }

  @Test
  void theCleanupReadsTheOldestRowsThroughAnExistingIndex() {
    assertThat(planWithoutSeqScan(resource("debezium-cleanup.sql")))
        .contains("outbox_events_ready_idx");
  }

  @Test
  void theDocumentShowsTheTestedConfigurationAndStatementsVerbatim() throws IOException {
    String doc =
        Files.readString(
            Path.of(System.getProperty("txoutbox.root", "..")).resolve("docs/debezium.md"),
            StandardCharsets.UTF_8);
    for (String name :
        List.of(
            "debezium-outbox.properties",
            "debezium-publication.sql",
            "debezium-cleanup.sql",
            "debezium-switch-back.sql")) {
      assertThat(doc).as(name).contains(resource(name));
    }
  }

  private static void assertRouted(SourceRecord record, Row row) throws IOException {
    assertThat(record.topic()).as("topic").isEqualTo(row.aggregateType());
    assertThat(record.key()).as("key").isEqualTo(row.aggregateId());
    assertThat(record.value()).as("value").isInstanceOf(String.class);
    assertThat(record.value()).as("payload, as PostgreSQL writes it").isEqualTo(row.payloadText());
    assertThat(JSON.readTree((String) record.value())).as("payload").isEqualTo(row.payload());
    List<String> names = new ArrayList<>();
    record.headers().forEach(h -> names.add(h.key()));
    assertThat(names).as("header names").containsExactlyElementsOf(HEADER_NAMES);
    assertThat(header(record, "id")).isEqualTo(row.id().toString());
    assertThat(header(record, "outbox-event-id")).isEqualTo(row.id().toString());
    assertThat(header(record, "outbox-event-type")).isEqualTo(row.eventType());
    assertThat(header(record, "outbox-aggregate-type")).isEqualTo(row.aggregateType());
    assertThat(header(record, "outbox-aggregate-id")).isEqualTo(row.aggregateId());
    assertThat(Instant.parse(header(record, "outbox-created-at")))
        .as("created at")
        .isEqualTo(row.createdAt().toInstant());
    assertThat(JSON.readTree(header(record, "outbox-headers")))
        .as("headers")
        .isEqualTo(row.headers());
  }

  private static String header(SourceRecord record, String name) {
    Header header = record.headers().lastWithName(name);
    assertThat(header).as("header " + name).isNotNull();
    assertThat(header.value()).as("header " + name).isInstanceOf(String.class);
    return (String) header.value();
  }

  private static <T> Map<String, List<String>> perAggregate(
      List<T> items, Function<T, String> aggregate, Function<T, String> id) {
    return items.stream().collect(groupingBy(aggregate, mapping(id, toList())));
  }

  private static Properties engineConfig() {
    Properties recipe = new Properties();
    try (InputStream in = stream("debezium-outbox.properties")) {
      recipe.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Properties deployment = new Properties();
    deployment.setProperty("name", "txoutbox-debezium-test");
    deployment.setProperty(
        "offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    deployment.setProperty("offset.flush.interval.ms", "0");
    deployment.setProperty("database.hostname", "localhost");
    deployment.setProperty("database.port", Integer.toString(SERVER.port()));
    deployment.setProperty("database.user", "postgres");
    deployment.setProperty("database.password", "postgres");
    deployment.setProperty("database.dbname", "postgres");
    deployment.setProperty("slot.drop.on.stop", "true");
    // The test adds only what the recipe leaves to the deployment; it never overrides the recipe.
    assertThat(recipe.stringPropertyNames())
        .doesNotContainAnyElementsOf(deployment.stringPropertyNames());
    recipe.putAll(deployment);
    return recipe;
  }

  // pg_replication_slots is a catalog view outside any generated model: named fields.
  private static boolean slotIsStreaming() {
    return Boolean.TRUE.equals(
        dsl.select(DSL.field("active", Boolean.class))
            .from("pg_replication_slots")
            .where(DSL.field("slot_name").eq(SLOT))
            .fetchOne(0, Boolean.class));
  }

  /** Waits for {@code condition}, failing at once with the engine's error if it stopped. */
  private static void awaitEngine(
      AtomicReference<Throwable> failure, java.util.concurrent.Callable<Boolean> condition) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              Throwable t = failure.get();
              if (t != null) {
                throw new AssertionError("the Debezium engine stopped", t);
              }
              return condition.call();
            });
  }

  /** The plan of {@code sql} with sequential scans ruled out, so an index that fits shows. */
  private static String planWithoutSeqScan(String sql) {
    try (Connection c = SERVER.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute("SET enable_seqscan = off");
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      return plan.toString();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  // Plain SQL: a test-only change to one row's creation time, which the generated classes would
  // express no better.
  private static String ageSql(UUID id) {
    return "UPDATE public.outbox_events SET created_at = now() - interval '8 days' WHERE id = '"
        + id
        + "'";
  }

  // Plain SQL, like the recipe's own statements: the table as an operator following the recipe
  // reads it, with payload and headers cast to the text PostgreSQL sends Debezium.
  private static List<Row> rows() {
    return dsl.resultQuery(
            "SELECT id, aggregate_type, aggregate_id, event_type, payload::text AS payload,"
                + " headers::text AS headers, created_at FROM public.outbox_events ORDER BY seq")
        .fetch(DebeziumOutboxRecipeTest::row);
  }

  private static Row row(Record r) {
    try {
      return new Row(
          r.get("id", UUID.class),
          r.get("aggregate_type", String.class),
          r.get("aggregate_id", String.class),
          r.get("event_type", String.class),
          r.get("payload", String.class),
          JSON.readTree(r.get("payload", String.class)),
          JSON.readTree(r.get("headers", String.class)),
          r.get("created_at", OffsetDateTime.class));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String resource(String name) {
    try (InputStream in = stream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream stream(String name) {
    return Objects.requireNonNull(
        DebeziumOutboxRecipeTest.class.getClassLoader().getResourceAsStream(name), name);
  }

  /** One outbox row as PostgreSQL returns it. */
  private record Row(
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payloadText,
      JsonNode payload,
      JsonNode headers,
      OffsetDateTime createdAt) {}
}
