package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.console.ConsoleServer;
import dev.txoutbox.testing.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** {@code txoutbox console} serves the console on the outbox until stopped. */
class ConsoleCommandTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern SERVING = Pattern.compile("on (http://127\\.0\\.0\\.1:\\d+/)");

  private TestDatabase db;
  private OutboxFixture outbox;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("cli_console");
    outbox = new OutboxFixture(db);
    log.start();
    ((Logger) LoggerFactory.getLogger(ConsoleServer.class)).addAppender(log);
    ((Logger) LoggerFactory.getLogger(ConsoleCommand.class)).addAppender(log);
  }

  @AfterEach
  void tearDown() {
    ((Logger) LoggerFactory.getLogger(ConsoleServer.class)).detachAppender(log);
    ((Logger) LoggerFactory.getLogger(ConsoleCommand.class)).detachAppender(log);
    db.close();
  }

  @Test
  void servesTheOutboxReadOnlyOnLoopbackUntilStopped() throws Exception {
    outbox.deadLetters("order.failed", 2); // publishes every other pending event
    outbox.pending("order.created", 3);
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run = start(cli, "--port", "0");
    URI base = await().atMost(WAIT).until(this::served, u -> u != null);

    HttpResponse<String> overview = get(base.resolve("api/o/main/overview"));
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(overview.body()).contains("\"pending\":3").contains("\"deadLetters\":2");
    assertThat(get(base.resolve("o/main/")).body()).contains("<html");
    // Read-only: an action is refused and changes nothing.
    HttpResponse<String> requeue =
        http.send(
            HttpRequest.newBuilder(base.resolve("api/o/main/dead-letters/requeue"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("expected=2"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(requeue.statusCode()).isEqualTo(403);
    assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(2);
    assertThat(messages()).anyMatch(m -> m.contains("read-only"));

    cli.stop.countDown();
    assertThat(run.get(WAIT.toSeconds(), TimeUnit.SECONDS).exitCode()).isZero();
  }

  @Test
  void anAdminSecretComesFromAFileAndNeverShows(@TempDir Path dir) throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "console-s3cret-0123456789\n");
    CliRunner cli = new CliRunner().env("OUTBOX_DB_USER", "postgres");
    CompletableFuture<CliRunner.Result> run =
        start(cli, "--port", "0", "--admin-secret-file", secret.toString());
    URI base = await().atMost(WAIT).until(this::served, u -> u != null);
    assertThat(get(base.resolve("api/session")).body()).doesNotContain("console-s3cret");
    assertThat(messages()).anyMatch(m -> m.contains("actions unlocked"));
    assertThat(messages()).noneMatch(m -> m.contains("console-s3cret"));

    cli.stop.countDown();
    CliRunner.Result result = run.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.exitCode()).isZero();
    assertThat(result.out() + result.err()).doesNotContain("console-s3cret");
  }

  @Test
  void aShortSecretIsRefusedNamingTheFlagAndTheLimit(@TempDir Path dir) throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "short");
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_DB_USER", "postgres")
            .run(
                "console",
                "--jdbc-url",
                TestDatabase.jdbcUrl(),
                "--schema",
                db.schema(),
                "--admin-secret-file",
                secret.toString());
    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--admin-secret-file").contains("16").doesNotContain("short\n");
  }

  private CompletableFuture<CliRunner.Result> start(CliRunner cli, String... options) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("console", "--jdbc-url", TestDatabase.jdbcUrl(), "--schema", db.schema()));
    args.addAll(List.of(options));
    return CompletableFuture.supplyAsync(() -> cli.run(args.toArray(String[]::new)));
  }

  /** The console's address once it logged it, else null. */
  private URI served() {
    for (String m : messages()) {
      Matcher matcher = SERVING.matcher(m);
      if (m.contains("serving the outbox console") && matcher.find()) {
        return URI.create(matcher.group(1));
      }
    }
    return null;
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private List<String> messages() {
    return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }
}
