package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.OutboxTestDatabase;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Filters and ids an attacker or a typo would send: each is refused with 400 and a message naming
 * the parameter and its limit, before any query runs, never a 500; text that merely looks like SQL
 * is a value like any other.
 */
class HostileInputTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static RunningConsole console;
  private static ConsoleClient http;

  @BeforeAll
  static void start() {
    console = RunningConsole.readOnly(db);
    http = console.client;
    Seed seed = new Seed(db);
    seed.pending("OrderPlaced", "1", "{}");
    seed.dead("OrderPlaced", "2", "boom");
  }

  @AfterAll
  static void stop() {
    console.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "api/o/main/events?state=dead'; drop table outbox_events;--|state must be at most 20 characters but was 34",
        "api/o/main/events?state=dead' or 1=1|state must be one of all, pending, due, delayed, dead, processed but was 'dead' or 1=1'",
        "api/o/main/events?eventId=1 or 1=1|eventId must be an event id (a UUID",
        "api/o/main/events?eventId=00000000-0000-0000-0000-00000000000g|eventId must be an event id",
        "api/o/main/events?after=../../etc/passwd|after must be an event id",
        "api/o/main/events?limit=99999999999999999999999|limit must be at most 20 characters but was 23",
        "api/o/main/events?limit=9999999999999999999|limit must be a whole number between 1 and 200",
        "api/o/main/events?limit=0|limit must be between 1 and 200 but was 0",
        "api/o/main/events?limit=201|limit must be between 1 and 200 but was 201",
        "api/o/main/events?from=yesterday|from must be a time such as 2026-12-06T03:00:00Z",
        "api/o/main/events?from=2026-12-06T10:00:00Z&to=2026-12-06T09:00:00Z|from must not be after to",
        "api/o/main/events?select=*|unknown parameter 'select'",
        "api/o/main/events?state=dead&state=due|state must be given at most once but was given 2",
        "api/o/main/events/not-a-uuid|event id must be an event id",
        "api/o/main/events/' or '1'='1|event id must be an event id",
        "api/o/main/overview?x=1|unknown parameter 'x'",
        "api/o/main/dead-letters/count?id=1;delete|id must be an event id",
        "api/o/main/dead-letters/count?group=nope|no group of dead letters has key 'nope'",
        "api/o/main/dead-letters/count?group=x&eventType=y|group must not be given with eventType",
      })
  void aHostileFilterIsABadRequestNamingTheParameter(String path, String message) {
    HttpResponse<String> r = http.get(encodeQuery(path));

    assertThat(r.statusCode()).as(r.body()).isIn(400, 409);
    assertThat(ConsoleClient.parse(r.body()).get("error").asText()).contains(message);
  }

  @ParameterizedTest(name = "{0} of {1} characters")
  @CsvSource({
    "eventType, 256, eventType must be at most 255 characters but was 256",
    "aggregateId, 100000, the parameters must be at most 8192 characters but were",
    "error, 201, error must be at most 200 characters but was 201",
  })
  void aHugeValueIsABadRequestNamingTheLimit(String name, int length, String message) {
    HttpResponse<String> r = http.get("api/o/main/events?" + name + "=" + "a".repeat(length));

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains(message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "eventType|x' or '1'='1",
        "aggregateId|1; drop table outbox_events; --",
        "error|%' or 1=1 --",
        "aggregateType|<script>alert(1)</script>",
      })
  void sqlShapedTextIsAValueThatMatchesNothing(String name, String value) {
    HttpResponse<String> r =
        http.get(
            "api/o/main/events?" + name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(ConsoleClient.parse(r.body()).get("events")).isEmpty();
    assertThat(new Seed(db).count("true")).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"o/nope/events", "api/o/nope/overview", "api/o/main/nope", "api/nope", "nope"})
  void anUnknownPathIsNotFound(String path) {
    assertThat(http.get(path).statusCode()).isEqualTo(404);
  }

  /** {@code path} with its query's spaces and quotes percent-encoded, as a browser sends them. */
  private static String encodeQuery(String path) {
    return path.replace(" ", "%20").replace("'", "%27").replace(";", "%3B").replace("*", "%2A");
  }
}
