package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.txoutbox.console.ConsoleServer;
import dev.txoutbox.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * {@code txoutbox relay --console-port}: the operations console served beside a running relay
 * (in-process, real PostgreSQL and RabbitMQ, real HTTP requests), read-only unless an admin secret
 * is named, the secret never shown.
 */
class RelayConsoleTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern SERVING =
      Pattern.compile("serving the outbox console on (http://127\\.0\\.0\\.1:\\d+/)");
  private static final String SECRET = "relay-console-s3cret-0123456789";

  private TestDatabase db;
  private OutboxFixture outbox;
  private RabbitQueue rabbit;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create("cli_relay_console");
    outbox = new OutboxFixture(db);
    rabbit = new RabbitQueue();
    log.start();
    ((Logger) LoggerFactory.getLogger(ConsoleServer.class)).addAppender(log);
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).addAppender(log);
  }

  @AfterEach
  void tearDown() throws Exception {
    ((Logger) LoggerFactory.getLogger(ConsoleServer.class)).detachAppender(log);
    ((Logger) LoggerFactory.getLogger(RelayCommand.class)).detachAppender(log);
    rabbit.close();
    db.close();
  }

  @Test
  void theConsoleBesideTheRelayIsReadOnlyWithoutASecret() throws Exception {
    outbox.deadLetters("order.failed", 2);
    outbox.pending("order.created", 3);
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run = startRelay(cli, "--console-port", "0");
    try {
      URI base = await().atMost(WAIT).until(this::served, u -> u != null);
      // The relay runs beside it: the pending events are published.
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == 3);
      await()
          .atMost(WAIT)
          .until(() -> get(base.resolve("api/o/main/overview")).body().contains("\"pending\":0"));

      HttpResponse<String> overview = get(base.resolve("api/o/main/overview"));
      assertThat(overview.statusCode()).isEqualTo(200);
      assertThat(overview.body()).contains("\"deadLetters\":2");
      assertThat(get(base.resolve("o/main/")).body()).contains("<html");
      assertThat(json(get(base.resolve("api/session")).body()).path("readOnly").asBoolean())
          .isTrue();
      // Read-only: an action is refused and changes nothing.
      HttpResponse<String> requeue = requeue(base, null, "");
      assertThat(requeue.statusCode()).isEqualTo(403);
      assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(2);
      assertThat(messages().stream().filter(m -> m.contains("starting")))
          .singleElement()
          .asString()
          .contains("; console on 127.0.0.1:0 (read-only)");
    } finally {
      cli.stop.countDown();
    }
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
    assertThat(messages()).anyMatch(m -> m.contains("stopped the outbox console"));
  }

  @Test
  void anAdminSecretUnlocksRequeueWhichTheRelayThenPublishesAndTheSecretNeverShows(
      @TempDir Path dir) throws Exception {
    outbox.deadLetters("order.failed", 2);
    Path secret = Files.writeString(dir.resolve("secret"), SECRET + "\n");
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        startRelay(cli, "--console-port", "0", "--console-admin-secret-file", secret.toString());
    CliRunner.Result result;
    try {
      URI base = await().atMost(WAIT).until(this::served, u -> u != null);
      String session = get(base.resolve("api/session")).body();
      assertThat(session).doesNotContain(SECRET);
      JsonNode sessionJson = json(session);
      assertThat(sessionJson.path("readOnly").asBoolean()).isFalse();
      String token = sessionJson.path("csrfToken").asText();

      // A wrong secret changes nothing.
      assertThat(requeue(base, "not-the-secret-0123456789", token).statusCode()).isEqualTo(401);
      assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(2);

      HttpResponse<String> requeued = requeue(base, SECRET, token);
      assertThat(requeued.statusCode()).as(requeued.body()).isEqualTo(200);
      // Requeued through the console, published by the relay beside it.
      await().atMost(WAIT).until(() -> rabbit.receivedCount() == 2);
      assertThat(outbox.count("dead_lettered_at is not null")).isZero();
      assertThat(messages().stream().filter(m -> m.contains("starting")))
          .singleElement()
          .asString()
          .contains("; console on 127.0.0.1:0 (actions unlocked)");
    } finally {
      cli.stop.countDown();
    }
    result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.exitCode()).as(result.err()).isZero();
    assertThat(messages()).noneMatch(m -> m.contains(SECRET));
    assertThat(result.out() + result.err()).doesNotContain(SECRET);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--console-port 70000 | --console-port must be between 0 and 65535 but was 70000",
        "--console-bind 127.0.0.1 | --console-bind applies with --console-port only",
        "--console-allowed-host h | --console-allowed-host applies with --console-port only",
        "--console-port 0 --console-allowed-host h:80 | --console-allowed-host must hold host names"
            + " without a port",
        "--console-port 0 --console-bind BLANK | --console-bind must not be blank",
        "--console-port 0 --console-admin-secret-file F --console-admin-secret-env V"
            + " | --console-admin-secret-file and --console-admin-secret-env must not both be given",
        "--console-port 0 --console-admin-secret-file SHORT | --console-admin-secret-file /",
        "--console-port 0 --console-admin-secret-env TXOUTBOX_TEST_UNSET_VARIABLE"
            + " | --console-admin-secret-env TXOUTBOX_TEST_UNSET_VARIABLE must be set but is not"
      })
  void badConsoleFlagsExitTwoNamingTheFlagBeforeAnythingStarts(
      String flags, String message, @TempDir Path dir) throws Exception {
    Path shortSecret = Files.writeString(dir.resolve("short"), "tiny-secret");
    List<String> args = new ArrayList<>(relayArgs());
    for (String flag : flags.trim().split(" ")) {
      args.add(
          switch (flag) {
            case "SHORT", "F" -> shortSecret.toString();
            case "BLANK" -> " ";
            default -> flag;
          });
    }
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x")
            .runUntilWaitingForTheDatabase(args.toArray(String[]::new));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.errLines().get(0)).startsWith(message.trim());
    assertThat(r.err()).doesNotContain("tiny-secret");
    if (flags.contains("SHORT")) {
      assertThat(r.errLines().get(0))
          .endsWith("short must hold a secret of 16 to 1024 characters but held 11");
    }
    assertThat(r.relayLogLines("starting")).isEmpty();
  }

  private List<String> relayArgs() {
    return List.of(
        "relay",
        "--schema",
        db.schema(),
        "--publisher",
        "rabbit",
        "--amqp-uri",
        RabbitQueue.URI,
        "--exchange",
        rabbit.exchange);
  }

  private CompletableFuture<CliRunner.Result> startRelay(CliRunner cli, String... options) {
    List<String> args = new ArrayList<>(List.of("--jdbc-url", TestDatabase.jdbcUrl()));
    args.addAll(relayArgs());
    args.addAll(List.of(options));
    return CompletableFuture.supplyAsync(
        () -> cli.run(args.toArray(String[]::new)),
        task -> new Thread(task, "relay-console-test").start());
  }

  private HttpResponse<String> requeue(URI base, String secret, String token) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve("api/o/main/dead-letters/requeue"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("X-CSRF-Token", token)
            .POST(HttpRequest.BodyPublishers.ofString("expected=2"));
    if (secret != null) {
      request.header("Authorization", "Bearer " + secret);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The console's address once it logged it, else null. */
  private URI served() {
    for (String m : messages()) {
      Matcher matcher = SERVING.matcher(m);
      if (matcher.find()) {
        return URI.create(matcher.group(1));
      }
    }
    return null;
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(String body) throws Exception {
    return new ObjectMapper().readTree(body);
  }

  private List<String> messages() {
    synchronized (log) {
      return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }
  }
}
