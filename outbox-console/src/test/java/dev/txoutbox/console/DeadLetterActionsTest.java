package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Requeue and purge of a group, of given ids and of a type, through the admin's actions. */
class DeadLetterActionsTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @TempDir static Path dir;

  private static RunningConsole console;
  private static ConsoleClient http;
  private static Seed seed;
  private static String csrf;

  @BeforeAll
  static void start() {
    console = RunningConsole.withCredential(db, dir);
    http = console.client;
    seed = new Seed(db);
    csrf = http.csrfToken();
  }

  @AfterAll
  static void stop() {
    console.close();
  }

  @BeforeEach
  void clean() {
    db.truncateOutbox();
  }

  @Test
  void aGroupLargerThanOneChunkIsRequeuedWholeAndNothingElse() {
    db.execute(
        "insert into "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, attempts,"
            + " dead_lettered_at, last_error) select gen_random_uuid(), 'order', g::text,"
            + " 'OrderPlaced', '{}', 5, now(), 'Timeout after ' || g || ' ms'"
            + " from generate_series(1, 2500) g");
    seed.dead("OrderPlaced", "other", "Unroutable");
    seed.dead("OrderShipped", "other", "Timeout after 5 ms");
    String key = ConsoleApiTest.groupKey("OrderPlaced", "Timeout after ? ms");

    long count = http.json("api/o/main/dead-letters/count?group=" + key).get("count").asLong();
    HttpResponse<String> r = act("requeue", "group=" + key + "&expected=" + count);

    assertThat(count).isEqualTo(2500);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode done = ConsoleClient.parse(r.body());
    assertThat(done.get("count").asLong()).isEqualTo(2500);
    assertThat(seed.count("dead_lettered_at is null")).isEqualTo(2500);
    // It ran in chunks of 1,000, whose progress its job reports.
    JsonNode job = http.json("api/o/main/jobs/" + done.get("job").asText());
    assertThat(job.get("state").asText()).isEqualTo("done");
    assertThat(job.get("chunks").asInt()).isEqualTo(3);
    assertThat(job.get("count").asLong()).isEqualTo(2500);
    assertThat(job.get("expected").asLong()).isEqualTo(2500);
    assertThat(http.get("api/o/main/jobs/nope").statusCode()).isEqualTo(404);
    assertThat(seed.count("dead_lettered_at is not null")).isEqualTo(2);
  }

  @Test
  void everyDeadLetterOfATypeIsPurgedInChunksWithItsProgress() {
    db.execute(
        "insert into "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, attempts,"
            + " dead_lettered_at, last_error) select gen_random_uuid(), 'order', g::text,"
            + " 'OrderPlaced', '{}', 5, now(), 'error ' || (g % 7) from generate_series(1, 2001) g");
    seed.dead("OrderShipped", "other", "kept");

    HttpResponse<String> r = act("purge", "eventType=OrderPlaced&expected=2001");

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode job =
        http.json("api/o/main/jobs/" + ConsoleClient.parse(r.body()).get("job").asText());
    assertThat(job.get("chunks").asInt()).isEqualTo(3);
    assertThat(job.get("count").asLong()).isEqualTo(2001);
    assertThat(job.get("action").asText()).isEqualTo("purged");
    assertThat(seed.count("true")).isEqualTo(1);
  }

  @Test
  void givenIdsArePurgedAndOthersKept() {
    UUID a = seed.dead("T", "1", "x");
    UUID b = seed.dead("T", "2", "x");
    seed.dead("T", "3", "x");

    HttpResponse<String> r = act("purge", "id=" + a + "&id=" + b + "&expected=2");

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(seed.count("true")).isEqualTo(1);
  }

  @Test
  void aGroupRequeuedMeanwhileIsAConflictThatChangesNothing() {
    seed.dead("T", "1", "boom 1");
    String key = ConsoleApiTest.groupKey("T", "boom ?");
    db.execute("update " + db.schema() + ".outbox_events set dead_lettered_at = null");

    HttpResponse<String> r = act("purge", "group=" + key + "&expected=1");

    assertThat(r.statusCode()).isEqualTo(409);
    assertThat(r.body()).contains("no group of dead letters has key");
    assertThat(seed.count("true")).isEqualTo(1);
  }

  @Test
  void theConsoleGroupsDeadLettersExactlyAsTheAdmin() {
    List<String> errors =
        List.of(
            "Timeout after 30000 ms",
            "Timeout after 45000 ms",
            "topic 'orders-17' not found",
            "topic 'orders-18' not found",
            "expected ',' or ';' at 12",
            "id 0190f3c2-1111-7abc-8def-0123456789ab unknown",
            "id 0190f3c2-2222-7abc-8def-0123456789ab unknown",
            "utf8 decoding failed at 0x1f",
            "key=\"abc\" rejected",
            "s3 bucket can't be reached");
    for (String error : errors) {
      seed.dead("T", error, error);
    }
    seed.dead("T", "none", null);

    List<DeadLetterGroup> groups =
        OutboxAdmin.create(db.dataSource(), db.schema()).deadLetterGroups();
    Map<String, Long> consoleCounts = new HashMap<>();
    for (DeadLetterGroup g : groups) {
      JsonNode count =
          http.json("api/o/main/dead-letters/count?group=" + DeadLetterSelection.groupKey(g));
      consoleCounts.put(g.errorFingerprint(), count.get("count").asLong());
    }

    assertThat(groups).hasSizeGreaterThan(5);
    for (DeadLetterGroup g : groups) {
      assertThat(consoleCounts.get(g.errorFingerprint()))
          .as("group %s", g.errorFingerprint())
          .isEqualTo(g.count());
    }
  }

  private static HttpResponse<String> act(String action, String form) {
    return http.post(
        "api/o/main/dead-letters/" + action,
        form,
        "X-CSRF-Token",
        csrf,
        "Authorization",
        "Bearer " + RunningConsole.SECRET);
  }
}
