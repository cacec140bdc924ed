package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.OutboxTestDatabase;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Actions are refused, and change nothing, unless they come from the console's own origin with the
 * admin credential and the CSRF token; a read-only console refuses them all; every refusal and
 * every action is one audit line.
 */
class ConsoleSafetyTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @TempDir static Path dir;

  private static RunningConsole console;
  private static ConsoleClient http;
  private static Seed seed;
  private static String csrf;
  private AuditLog audit;

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
  void threeDeadLetters() {
    db.truncateOutbox();
    seed.dead("OrderPlaced", "1", "boom");
    seed.dead("OrderPlaced", "2", "boom");
    seed.dead("OrderPlaced", "3", "boom");
    audit = new AuditLog();
  }

  @AfterEach
  void detach() {
    audit.close();
  }

  private static final String REQUEUE = "api/o/main/dead-letters/requeue";
  private static final String ALL_THREE = "expected=3";

  @Test
  void anActionWithoutTheCredentialIsRefusedWith401AndChangesNothing() {
    HttpResponse<String> r = http.post(REQUEUE, ALL_THREE, "X-CSRF-Token", csrf);

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"txoutbox console\"");
    assertThat(r.body()).contains("needs the admin credential");
    assertNothingChanged();
    assertThat(audit.lines())
        .singleElement()
        .asString()
        .startsWith("WARN refused /api/o/main/dead-letters/requeue");
  }

  @Test
  void anActionWithAWrongCredentialIsRefusedWith401AndChangesNothing() {
    HttpResponse<String> r =
        http.post(
            REQUEUE,
            ALL_THREE,
            "X-CSRF-Token",
            csrf,
            "Authorization",
            "Bearer not-the-secret-at-all");
    HttpResponse<String> basic =
        http.post(
            REQUEUE,
            ALL_THREE,
            "X-CSRF-Token",
            csrf,
            "Authorization",
            basic("alice", "wrong-secret-value"));

    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(basic.statusCode()).isEqualTo(401);
    assertThat(r.body() + basic.body()).doesNotContain(RunningConsole.SECRET);
    assertNothingChanged();
  }

  @Test
  void aCrossSiteActionIsRefusedWith403EvenWithTheCredentialAndToken() {
    HttpResponse<String> origin =
        http.post(
            REQUEUE, ALL_THREE, bearer("X-CSRF-Token", csrf, "Origin", "https://evil.example"));
    HttpResponse<String> site =
        http.post(REQUEUE, ALL_THREE, bearer("X-CSRF-Token", csrf, "Sec-Fetch-Site", "cross-site"));
    HttpResponse<String> sameSite =
        http.post(REQUEUE, ALL_THREE, bearer("X-CSRF-Token", csrf, "Sec-Fetch-Site", "same-site"));

    assertThat(origin.statusCode()).isEqualTo(403);
    assertThat(origin.body())
        .contains("cross-site request refused: Origin must be this console's host");
    assertThat(site.statusCode()).isEqualTo(403);
    assertThat(site.body()).contains("Sec-Fetch-Site must be same-origin but was 'cross-site'");
    assertThat(sameSite.statusCode()).isEqualTo(403);
    assertNothingChanged();
    assertThat(audit.lines()).hasSize(3).allMatch(line -> line.startsWith("WARN refused"));
  }

  @Test
  void anActionWithoutTheCsrfTokenIsRefusedWith403AndChangesNothing() {
    HttpResponse<String> none = http.post(REQUEUE, ALL_THREE, bearer());
    HttpResponse<String> wrong = http.post(REQUEUE, ALL_THREE, bearer("X-CSRF-Token", "forged"));

    assertThat(none.statusCode()).isEqualTo(403);
    assertThat(none.body()).contains("must carry the console's CSRF token in header X-CSRF-Token");
    assertThat(wrong.statusCode()).isEqualTo(403);
    assertNothingChanged();
  }

  @Test
  void getNeverActs() {
    HttpResponse<String> r = http.get(REQUEUE + "?" + ALL_THREE);
    HttpResponse<String> purge = http.get("api/o/main/dead-letters/purge?" + ALL_THREE);

    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue("POST");
    assertThat(purge.statusCode()).isEqualTo(405);
    assertNothingChanged();
  }

  @Test
  void aPostToAPageToReadIsRefused() {
    HttpResponse<String> r = http.post("api/o/main/overview", "", bearer("X-CSRF-Token", csrf));

    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  @Test
  void aConfirmationOfAnotherCountChangesNothingAndSaysTheCountNow() {
    HttpResponse<String> r = http.post(REQUEUE, "expected=2", bearer("X-CSRF-Token", csrf));

    assertThat(r.statusCode()).isEqualTo(409);
    assertThat(r.body())
        .contains("now holds 3 dead letters, not the 2 confirmed; nothing was changed");
    assertNothingChanged();
  }

  @Test
  void anActionWithoutTheConfirmedCountIsABadRequest() {
    HttpResponse<String> r = http.post(REQUEUE, "", bearer("X-CSRF-Token", csrf));

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("expected must be the count the confirmation named");
    assertNothingChanged();
  }

  @Test
  void aSameOriginActionWithCredentialAndTokenRequeuesAndWritesOneAuditLine() {
    String host = console.server.uri().getAuthority();
    HttpResponse<String> r =
        http.post(
            REQUEUE,
            "eventType=OrderPlaced&expected=3",
            bearer(
                "X-CSRF-Token", csrf, "Origin", "http://" + host, "Sec-Fetch-Site", "same-origin"));

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.body()).contains("\"count\":3");
    assertThat(seed.count("dead_lettered_at is not null")).isZero();
    assertThat(seed.count("processed_at is null and dead_lettered_at is null and attempts = 0"))
        .isEqualTo(3);
    assertThat(audit.lines())
        .singleElement()
        .asString()
        .isEqualTo(
            "INFO bearer token from 127.0.0.1 requeued dead letters of type 'OrderPlaced' of outbox"
                + " main ("
                + db.schema()
                + "): 3 rows");
  }

  @Test
  void basicAuthNamesTheOperatorInTheAuditLine() {
    HttpResponse<String> r =
        http.post(
            "api/o/main/dead-letters/purge",
            ALL_THREE,
            "X-CSRF-Token",
            csrf,
            "Authorization",
            basic("alice", RunningConsole.SECRET));

    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(seed.count("true")).isZero();
    assertThat(audit.lines())
        .singleElement()
        .asString()
        .startsWith("INFO basic auth user alice from 127.0.0.1 purged all dead letters")
        .endsWith(": 3 rows");
  }

  @Test
  void aReadOnlyConsoleRefusesEveryActionWith403() {
    try (RunningConsole readOnly = RunningConsole.readOnly(db)) {
      ConsoleClient client = readOnly.client;
      HttpResponse<String> r =
          client.post(
              REQUEUE,
              ALL_THREE,
              "X-CSRF-Token",
              client.csrfToken(),
              "Authorization",
              "Bearer " + RunningConsole.SECRET);

      assertThat(client.json("api/session").get("readOnly").asBoolean()).isTrue();
      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(r.body()).contains("the console is read-only");
    }
    assertNothingChanged();
  }

  @Test
  void anOversizedBodyIsRefusedUnread() {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(console.server.uri().resolve(REQUEUE))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("id=" + "x".repeat(20_000))));

    assertThat(r.statusCode()).isEqualTo(413);
    assertNothingChanged();
  }

  private static String[] bearer(String... more) {
    String[] headers = new String[more.length + 2];
    headers[0] = "Authorization";
    headers[1] = "Bearer " + RunningConsole.SECRET;
    System.arraycopy(more, 0, headers, 2, more.length);
    return headers;
  }

  private static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private static void assertNothingChanged() {
    assertThat(seed.count("dead_lettered_at is not null and attempts = 5")).isEqualTo(3);
  }
}
