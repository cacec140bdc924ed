package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Every read endpoint of the JSON API, and the pages, against a real PostgreSQL outbox. */
class ConsoleApiTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @TempDir static Path dir;

  private static RunningConsole console;
  private static ConsoleClient http;
  private static Seed seed;

  @BeforeAll
  static void start() {
    console = RunningConsole.withCredential(db, dir);
    http = console.client;
    seed = new Seed(db);
  }

  @AfterAll
  static void stop() {
    console.close();
  }

  @BeforeEach
  void clean() {
    db.truncateOutbox();
    seed.noRelays();
  }

  @Test
  void sessionSaysWhetherActionsAreOpenAndListsTheOutboxes() {
    JsonNode session = http.json("api/session");

    assertThat(session.get("readOnly").asBoolean()).isFalse();
    assertThat(session.get("csrfToken").asText()).hasSizeGreaterThan(30);
    assertThat(session.get("outboxes").toString()).isEqualTo("[\"main\"]");
    assertThat(session.get("statementTimeoutMillis").asLong()).isEqualTo(5_000);
  }

  @Test
  void overviewCountsTheBacklogAndPutsTheProblemFirst() {
    seed.pending("OrderPlaced", "1", "{}");
    seed.pending("OrderPlaced", "2", "{}");
    seed.delayed("OrderPlaced", "3");
    seed.dead("OrderPlaced", "4", "broker said no");
    seed.processed("OrderPlaced", "5");

    JsonNode o = http.json("api/o/main/overview");

    assertThat(o.get("pending").asLong()).isEqualTo(3);
    assertThat(o.get("dueNow").asLong()).isEqualTo(2);
    assertThat(o.get("delayed").asLong()).isEqualTo(1);
    assertThat(o.get("deadLetters").asLong()).isEqualTo(1);
    assertThat(o.get("processedLastMinute").asLong()).isEqualTo(1);
    assertThat(o.get("slot").isNull()).isTrue();
    // No relay beats here: that comes first, the dead letter after it.
    assertThat(o.get("problems").get(0).get("text").asText()).startsWith("No relay is running");
    assertThat(o.get("problems").get(1).get("level").asText()).isEqualTo("warning");
    assertThat(o.get("problems").get(1).get("text").asText())
        .startsWith("1 dead letter: an event that failed for good");
  }

  @Test
  void overviewOfAnOutboxWithNothingWrongSaysAllClear() {
    seed.pending("OrderPlaced", "1", "{}");
    seed.relay("billing", "polling", 3_600_000, 1, 1L, false, "");

    JsonNode problems = http.json("api/o/main/overview").get("problems");

    assertThat(problems).hasSize(1);
    assertThat(problems.get(0).get("level").asText()).isEqualTo("ok");
    assertThat(problems.get(0).get("text").asText()).startsWith("All clear: 1 pending, 1 due");
  }

  @Test
  void overviewWarnsOfDeadTuplesPilingUpInATableAutovacuumDoesNotVisit() throws Exception {
    seed.relay("billing", "polling", 3_600_000, 1, 1L, false, "");
    String table = db.schema() + ".outbox_events";
    db.dsl().execute("ALTER TABLE " + table + " SET (autovacuum_enabled = false)");
    try {
      JsonNode few = http.json("api/o/main/overview");
      assertThat(few.get("eventsTable").get("autovacuum").asBoolean()).isFalse();
      assertThat(few.get("problems").get(0).get("level").asText()).isEqualTo("ok");

      // As many completed events as the warning's threshold, deleted: that many dead tuples.
      db.dsl()
          .execute(
              "INSERT INTO "
                  + table
                  + " (id, aggregate_type, aggregate_id, event_type, payload)"
                  + " SELECT gen_random_uuid(), 'order', 'o-' || n, 'OrderPlaced', '{}'"
                  + " FROM generate_series(1, "
                  + Overview.DEAD_TUPLES_WITHOUT_AUTOVACUUM
                  + ") n");
      deleteAllOnABackendThatEnds(table);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  http.json("api/o/main/overview").get("eventsTable").get("deadTuples").asLong()
                      == Overview.DEAD_TUPLES_WITHOUT_AUTOVACUUM);
      JsonNode many = http.json("api/o/main/overview");
      assertThat(many.get("eventsTable").get("sizeBytes").asLong()).isPositive();
      JsonNode problem = many.get("problems").get(0);
      assertThat(problem.get("level").asText()).isEqualTo("warning");
      assertThat(problem.get("text").asText())
          .startsWith("Autovacuum is off for the events table, which holds 10000 dead tuples (")
          .endsWith(
              " with its indexes): they grow until something vacuums the table. Run the relay"
                  + " with vacuumInterval (--vacuum-interval), or turn autovacuum on.");
    } finally {
      db.dsl().execute("ALTER TABLE " + table + " RESET (autovacuum_enabled)");
      // No dead tuples left for the next test: on a server without autovacuum (this project's CI
      // server) they would warn there too, until the truncation before it reached the statistics.
      db.dsl().execute("VACUUM " + table);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  http.json("api/o/main/overview").get("eventsTable").get("deadTuples").asLong()
                      == 0);
    }
  }

  /**
   * Deletes every row of {@code table} on a pooled connection, then closes that connection for
   * good: a backend that ends sends its statistics on every PostgreSQL version (before 15, a live
   * one sends them at most every 500 ms, and only when it next goes idle).
   */
  private static void deleteAllOnABackendThatEnds(String table) throws Exception {
    HikariDataSource pool = db.dataSource().unwrap(HikariDataSource.class);
    Connection c = pool.getConnection();
    try (Statement s = c.createStatement()) {
      s.executeUpdate("DELETE FROM " + table);
    } finally {
      pool.evictConnection(c);
    }
  }

  @Test
  void eventsAreFilteredByStateTypeAggregateErrorAndTime() {
    UUID due = seed.pending("OrderPlaced", "a-1", "{}");
    UUID delayed = seed.delayed("OrderShipped", "a-2");
    UUID dead = seed.dead("OrderPlaced", "a-3", "Timeout after 30000 ms");
    UUID processed = seed.processed("OrderPlaced", "a-1");

    assertThat(ids("")).containsExactly(processed, dead, delayed, due);
    assertThat(ids("state=pending")).containsExactly(delayed, due);
    assertThat(ids("state=due")).containsExactly(due);
    assertThat(ids("state=delayed")).containsExactly(delayed);
    assertThat(ids("state=dead")).containsExactly(dead);
    assertThat(ids("state=processed")).containsExactly(processed);
    assertThat(ids("eventType=OrderShipped")).containsExactly(delayed);
    assertThat(ids("aggregateId=a-1")).containsExactly(processed, due);
    assertThat(ids("aggregateType=order&aggregateId=a-3")).containsExactly(dead);
    assertThat(ids("error=timeout%20AFTER")).containsExactly(dead);
    assertThat(ids("eventId=" + delayed)).containsExactly(delayed);
    String future = OffsetDateTime.now(ZoneOffset.UTC).plusHours(1).toInstant().toString();
    assertThat(ids("from=" + future)).isEmpty();
    assertThat(ids("to=" + future)).hasSize(4);
  }

  @Test
  void anErrorFilterMatchesPercentAndUnderscoreLiterally() {
    UUID percent = seed.dead("T", "1", "disk 100% full");
    seed.dead("T", "2", "disk full");

    assertThat(ids("error=%25")).containsExactly(percent);
    assertThat(ids("error=_")).isEmpty();
  }

  @Test
  void pagesWalkEveryEventOnceNewestFirstWithTheCursor() {
    List<UUID> written = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      written.add(seed.pending("T", "agg-" + i, "{}"));
    }
    List<UUID> seen = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      JsonNode page =
          http.json("api/o/main/events?limit=3" + (after == null ? "" : "&after=" + after));
      page.get("events").forEach(e -> seen.add(UUID.fromString(e.get("id").asText())));
      after = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (after != null);

    assertThat(pages).isEqualTo(3);
    java.util.Collections.reverse(written);
    assertThat(seen).containsExactlyElementsOf(written);
  }

  @Test
  void aRareMatchIsFoundByWalkingWindowsAndNoPageReadsMoreThanOneWindow() {
    db.execute(
        "insert into "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, processed_at)"
            + " select gen_random_uuid(), 'order', g::text, 'T', '{}', now()"
            + " from generate_series(1, 15000) g");
    UUID dead = seed.dead("T", "rare", "no");

    Set<UUID> found = new HashSet<>();
    String after = null;
    int pages = 0;
    do {
      JsonNode page =
          http.json("api/o/main/events?state=dead" + (after == null ? "" : "&after=" + after));
      assertThat(page.get("searched").asInt()).isLessThanOrEqualTo(EventQueries.WINDOW);
      page.get("events").forEach(e -> found.add(UUID.fromString(e.get("id").asText())));
      after = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (after != null);

    assertThat(found).containsExactly(dead);
    assertThat(pages).isEqualTo(2);
  }

  @Test
  void detailShowsThePayloadAsStoredHeadersAndErrorWithSecretsMasked() {
    UUID id =
        seed.insert(
            "OrderPlaced",
            "o-1",
            "{\"note\": \"<script>alert(1)</script>\", \"total\": 12}",
            "{\"traceparent\": \"00-abc-01\", \"authorization\": \"Bearer hunter2hunter2\"}",
            3,
            null,
            null,
            OffsetDateTime.now(ZoneOffset.UTC),
            "connect to amqp://app:pa55word@rabbit/ failed");

    HttpResponse<String> raw = http.get("api/o/main/events/" + id);
    JsonNode e = ConsoleClient.parse(raw.body());

    assertThat(raw.body())
        .doesNotContain("<script>")
        .doesNotContain("hunter2")
        .doesNotContain("pa55word");
    assertThat(e.get("payload").asText()).contains("<script>alert(1)</script>");
    assertThat(e.get("headers").get("traceparent").asText()).isEqualTo("00-abc-01");
    assertThat(e.get("headers").get("authorization").asText()).isEqualTo("****");
    assertThat(e.get("lastError").asText()).isEqualTo("connect to amqp://app:****@rabbit/ failed");
    assertThat(e.get("attempts").asInt()).isEqualTo(3);
    assertThat(e.get("state").asText()).isEqualTo("dead");
    assertThat(e.get("heldBackBy").isNull()).isTrue();
  }

  @Test
  void detailOfHeadersThatAreNotAnObjectShowsTheirText() {
    UUID id = seed.insert("T", "1", "[1,2]", "[\"x\"]", 0, null, null, null, null);

    JsonNode e = http.json("api/o/main/events/" + id);

    assertThat(e.get("rawHeaders").asText()).isEqualTo("[\"x\"]");
    assertThat(e.get("headers").size()).isZero();
    assertThat(e.get("payload").asText()).isEqualTo("[1, 2]");
  }

  @Test
  void detailOfAnUnknownEventIsNotFound() {
    HttpResponse<String> r = http.get("api/o/main/events/" + UUID.randomUUID());

    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).contains("no event");
  }

  @Test
  void deadLettersAreGroupedByTypeAndErrorFingerprint() {
    seed.dead("OrderPlaced", "1", "Timeout after 30000 ms");
    seed.dead("OrderPlaced", "2", "Timeout after 45000 ms");
    seed.dead("OrderShipped", "3", "password=swordfish rejected");

    JsonNode d = http.json("api/o/main/dead-letters");

    assertThat(d.get("total").asLong()).isEqualTo(3);
    assertThat(d.get("groupCount").asInt()).isEqualTo(2);
    List<String> groups = new ArrayList<>();
    d.get("groups")
        .forEach(
            g ->
                groups.add(
                    g.get("eventType").asText()
                        + " "
                        + g.get("count").asLong()
                        + " "
                        + g.get("fingerprint").asText()));
    assertThat(groups)
        .containsExactlyInAnyOrder(
            "OrderPlaced 2 Timeout after ? ms", "OrderShipped 1 password=**** rejected");
    assertThat(d.toString()).doesNotContain("swordfish");
  }

  @Test
  void theDryRunCountNamesTheSelectionOfAGroupATypeIdsOrAll() {
    seed.dead("OrderPlaced", "1", "Timeout after 30000 ms");
    seed.dead("OrderPlaced", "2", "Timeout after 45000 ms");
    UUID other = seed.dead("OrderPlaced", "3", "Unroutable");
    seed.dead("OrderShipped", "4", "Unroutable");
    String key = groupKey("OrderPlaced", "Timeout after ? ms");

    JsonNode group = http.json("api/o/main/dead-letters/count?group=" + key);
    JsonNode type = http.json("api/o/main/dead-letters/count?eventType=OrderPlaced");
    JsonNode ids = http.json("api/o/main/dead-letters/count?id=" + other);
    JsonNode all = http.json("api/o/main/dead-letters/count");

    assertThat(group.get("count").asLong()).isEqualTo(2);
    assertThat(group.get("selection").asText())
        .isEqualTo(
            "dead letters of type 'OrderPlaced' whose error reads like 'Timeout after ? ms'");
    assertThat(type.get("count").asLong()).isEqualTo(3);
    assertThat(ids.get("count").asLong()).isEqualTo(1);
    assertThat(all.get("count").asLong()).isEqualTo(4);
    assertThat(all.get("selection").asText()).isEqualTo("all dead letters");
  }

  @Test
  void relaysPageSaysThereIsNoSlotAndListsNoRelayWithoutHeartbeats() {
    seed.noRelays();
    JsonNode r = http.json("api/o/main/relays");

    assertThat(r.get("slot").isNull()).isTrue();
    assertThat(r.get("slotName").asText()).isEqualTo("txoutbox_" + db.schema());
    assertThat(r.get("relays").size()).isZero();
    assertThat(r.get("running").asLong()).isZero();
    assertThat(r.get("heartbeatTableMissing").asBoolean()).isFalse();
  }

  @Test
  void relaysPageTellsRunningStaleAndStoppedRelaysApartWithTheirLastCycle() {
    seed.noRelays();
    seed.relay("billing", "polling", 10_000, 4, 2L, false, "batchSize=500 password=hunter2");
    seed.relay("shipping", "wal", 10_000, 600, 601L, false, "");
    seed.relay("reports", "polling", 10_000, 3_600, null, true, "");

    JsonNode r = http.json("api/o/main/relays");

    assertThat(r.get("running").asLong()).isEqualTo(1);
    JsonNode relays = r.get("relays");
    assertThat(relays.size()).isEqualTo(3);
    // Not stopped first, newest beat first.
    assertThat(relays.get(0).get("name").asText()).isEqualTo("billing");
    assertThat(relays.get(0).get("state").asText()).isEqualTo("running");
    assertThat(relays.get(0).get("kind").asText()).isEqualTo("polling");
    assertThat(relays.get(0).get("lastCycleAgeSeconds").asDouble()).isBetween(2.0, 60.0);
    assertThat(relays.get(0).get("settings").asText())
        .contains("batchSize=500")
        .doesNotContain("hunter2");
    assertThat(relays.get(1).get("name").asText()).isEqualTo("shipping");
    assertThat(relays.get(1).get("state").asText()).isEqualTo("stale");
    assertThat(relays.get(2).get("name").asText()).isEqualTo("reports");
    assertThat(relays.get(2).get("state").asText()).isEqualTo("stopped");
    assertThat(relays.get(2).get("lastCycleAt").isNull()).isTrue();
  }

  @Test
  void theChartsHoldTheSamplesTakenOldestFirst() {
    seed.pending("OrderPlaced", "1", "{}");
    seed.processed("OrderPlaced", "2");
    console.console.sampler().sampleAll();
    seed.pending("OrderPlaced", "3", "{}");
    console.console.sampler().sampleAll();

    JsonNode c = http.json("api/o/main/chart");

    assertThat(c.get("intervalSeconds").asDouble()).isEqualTo(10.0);
    JsonNode pending = c.get("pending");
    // The console's own first sample, taken at its first request, may come before ours.
    assertThat(pending.size()).isGreaterThanOrEqualTo(2);
    assertThat(c.get("t").size()).isEqualTo(pending.size());
    assertThat(pending.get(pending.size() - 2).asLong()).isEqualTo(1);
    assertThat(pending.get(pending.size() - 1).asLong()).isEqualTo(2);
    JsonNode rate = c.get("publishedPerSecond");
    assertThat(rate.get(rate.size() - 1).asDouble()).isEqualTo(1 / 60.0);
  }

  @Test
  void aSchemaWithoutTheHeartbeatTableSaysToMigrateAndWarnsOfNoRelay() {
    seed.pending("OrderPlaced", "1", "{}");
    String table = db.schema() + ".outbox_relays";
    db.execute("alter table " + table + " rename to outbox_relays_away");
    try {
      JsonNode r = http.json("api/o/main/relays");
      assertThat(r.get("heartbeatTableMissing").asBoolean()).isTrue();
      assertThat(r.get("heartbeatTable").asText()).isEqualTo(table);
      JsonNode o = http.json("api/o/main/overview");
      assertThat(o.get("relaysRunning").isNull()).isTrue();
      assertThat(o.get("problems").toString()).doesNotContain("No relay is running");
    } finally {
      db.execute("alter table " + db.schema() + ".outbox_relays_away rename to outbox_relays");
    }
  }

  @Test
  void overviewSaysNoRelayIsRunningWhileEventsAreDueAndNoneBeats() {
    seed.noRelays();
    seed.relay("shipping", "polling", 10_000, 600, 600L, false, "");
    seed.pending("OrderPlaced", "1", "{}");

    JsonNode stale = http.json("api/o/main/overview");
    assertThat(stale.get("relaysRunning").asLong()).isZero();
    assertThat(stale.get("problems").get(0).get("level").asText()).isEqualTo("critical");
    assertThat(stale.get("problems").get(0).get("text").asText())
        .startsWith("No relay is running: 1 event is due");

    seed.relay("billing", "polling", 10_000, 1, 1L, false, "");
    JsonNode running = http.json("api/o/main/overview");
    assertThat(running.get("relaysRunning").asLong()).isEqualTo(1);
    assertThat(running.get("problems").toString()).doesNotContain("No relay is running");
  }

  @Test
  void everyPageUrlAnswersTheShellWithAStrictContentSecurityPolicy() {
    for (String page :
        List.of(
            "o/main/",
            "o/main/events",
            "o/main/events/" + UUID.randomUUID(),
            "o/main/dead-letters",
            "o/main/relays")) {
      HttpResponse<String> r = http.get(page);
      assertThat(r.statusCode()).as(page).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
      assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
          .contains("script-src 'self'")
          .doesNotContain("unsafe-inline");
      assertThat(r.body()).contains("/assets/app.js");
    }
    assertThat(http.get("").statusCode()).isEqualTo(302);
    assertThat(http.get("").headers().firstValue("Location")).hasValue("/o/main/");
    assertThat(http.get("o/nope/").statusCode()).isEqualTo(404);
    assertThat(http.get("o/main/nope").statusCode()).isEqualTo(404);
    assertThat(http.get("assets/app.js").headers().firstValue("Content-Type"))
        .hasValue("text/javascript; charset=utf-8");
    assertThat(http.get("assets/app.css").statusCode()).isEqualTo(200);
    assertThat(http.get("assets/../pom.xml").statusCode()).isEqualTo(404);
  }

  @Test
  void theScriptNeverParsesHtml() {
    String script = http.get("assets/app.js").body();

    assertThat(script)
        .doesNotContain("innerHTML")
        .doesNotContain("outerHTML")
        .doesNotContain("insertAdjacentHTML")
        .doesNotContain("document.write")
        .doesNotContain("eval(");
  }

  static String groupKey(String eventType, String fingerprint) {
    return DeadLetterSelection.groupKey(
        new dev.txoutbox.DeadLetterGroup(eventType, fingerprint, 0, java.time.Instant.EPOCH, ""));
  }

  private static List<UUID> ids(String query) {
    List<UUID> ids = new ArrayList<>();
    http.json("api/o/main/events?" + query)
        .get("events")
        .forEach(e -> ids.add(UUID.fromString(e.get("id").asText())));
    return ids;
  }
}
