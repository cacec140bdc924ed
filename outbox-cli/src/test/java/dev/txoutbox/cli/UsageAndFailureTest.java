package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.SecretMasking;
import dev.txoutbox.testing.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad arguments exit 2 and touch nothing; an unreachable database is one line and exit 1, except
 * for the relay, which waits for it.
 */
class UsageAndFailureTest {

  private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/x?password=hunter2";

  private static TestDatabase db;
  private static OutboxFixture outbox;

  @BeforeAll
  static void setUp() {
    db = TestDatabase.create("cli_usage");
    outbox = new OutboxFixture(db);
    outbox.deadLetters("order.rejected", 2);
  }

  @AfterAll
  static void tearDown() {
    db.close();
  }

  private static CliRunner cli() {
    return CliRunner.forDatabase(db);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "no-such-command",
        "status --no-such-option",
        "dead-letters",
        "dead-letters requeue",
        "dead-letters requeue --all --event-type order.rejected",
        "dead-letters requeue --id not-a-uuid",
        "dead-letters purge --all --id 7d1c9a1e-8a57-4c47-9b3c-5b2d0c4e0c11 --yes",
        "dead-letters list --limit 0",
        "cleanup",
        "cleanup --older-than soon",
        "cleanup --older-than 7d --chunk 0",
        "--schema Bad-Name status",
        "--schema pg_outbox status",
        "--schema user status",
        "--schema s234567890123456789012345678901234567890123456789012345 status",
        "relay",
        "relay --publisher carrier-pigeon",
        "relay --publisher rabbit",
        "relay --publisher rabbit --exchange x --amqp-uri amqp://h --bootstrap-servers k:9092",
        "relay --publisher rabbit --exchange x --amqp-uri amqp://h --batch-size 0",
        "relay --publisher rabbit --exchange x --amqp-uri amqp://h --completion sometimes",
        "relay --publisher rabbit --exchange x --amqp-uri amqp://h --ordering by-luck",
        "relay --publisher rabbit --exchange x --amqp-uri amqp://h --workers 4 --pool-size 2",
        "relay --publisher rabbit --exchange x --amqp-uri amqp://h --metrics-port 70000",
        "relay --publisher kafka",
        "relay --publisher kafka --bootstrap-servers k:9092 --topic-prefix p. --topic a=b",
        "relay --publisher sqs",
      })
  void badArgumentsExitTwoAndTouchNothing(String args) {
    CliRunner.Result r = cli().run(args.isEmpty() ? new String[0] : args.split(" "));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).isNotBlank();
    assertThat(r.out()).isEmpty();
    assertThat(outbox.count("dead_lettered_at is not null")).isEqualTo(2);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--no-such-flag | txoutbox",
        "migrate --no-such-flag | txoutbox migrate",
        "status --no-such-flag | txoutbox status",
        "dead-letters --no-such-flag | txoutbox dead-letters",
        "dead-letters list --no-such-flag | txoutbox dead-letters list",
        "dead-letters groups --no-such-flag | txoutbox dead-letters groups",
        "dead-letters requeue --all --no-such-flag | txoutbox dead-letters requeue",
        "dead-letters purge --all --no-such-flag | txoutbox dead-letters purge",
        "cleanup --older-than 7d --no-such-flag | txoutbox cleanup",
        "wal-slot show --no-such-flag | txoutbox wal-slot show",
        "wal-slot drop --slot s --no-such-flag | txoutbox wal-slot drop",
        "relay --publisher fake --no-such-flag | txoutbox relay",
        "console --no-such-flag | txoutbox console",
        "console --port 70000 | txoutbox console",
        "relay --publisher fake --batch-size many | txoutbox relay",
        "relay --publisher fake --workers 65 | txoutbox relay",
        "relay --publisher fake --source wal --workers 2 | txoutbox relay",
        " | txoutbox",
      })
  void aBadFlagIsOneLineAndAHintToHelpNotTheUsage(String args, String command) {
    CliRunner.Result r = cli().run(args == null ? new String[0] : args.split(" "));

    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).doesNotContain("Usage:");
    List<String> lines = r.errLines();
    // The message, at most one line of suggestions for a mistyped name, and the hint.
    assertThat(lines).as(r.err()).hasSizeBetween(2, 3);
    assertThat(lines.get(lines.size() - 1))
        .isEqualTo("Try '" + command + " --help' for more information.");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aCommandAfterAnUnknownFlagNamedLikeASecretIsNotTakenForItsValue() {
    CliRunner.Result r = cli().run("--token", "status");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("'--token'").doesNotContain(SecretMasking.MASK);
    // Not hidden from later output either (the hidden values are the process's).
    assertThat(cli().run().errLines().get(0)).contains(" status,");
  }

  @Test
  void withoutACommandTheErrorListsTheCommands() {
    CliRunner.Result r = cli().run();

    assertThat(r.errLines().get(0))
        .isEqualTo(
            "a command must be given (one of migrate, status, dead-letters, cleanup, console,"
                + " wal-slot, relay, fleet) but was not");
  }

  @Test
  void anEnumValuedFlagListsTheValuesItAccepts() {
    CliRunner.Result r =
        cli()
            .run(
                "relay",
                "--publisher",
                "rabbit",
                "--exchange",
                "x",
                "--amqp-uri",
                "amqp://h",
                "--ordering",
                "by-luck");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .contains(
            "--ordering must be one of none, per-aggregate, per-aggregate-skip-dead-letters but"
                + " was 'by-luck'");
  }

  @Test
  void aMissingJdbcUrlIsAUsageError() {
    CliRunner.Result r = new CliRunner().run("status");

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err()).contains("--jdbc-url").contains("OUTBOX_JDBC_URL");
  }

  @Test
  void anUnreachableDatabaseIsOneLineAndExitOneWithoutAStackTrace() {
    CliRunner.Result r = new CliRunner().run("status", "--jdbc-url", UNREACHABLE);

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.errLines())
        .containsExactly(
            "txoutbox: cannot reach the database at jdbc:postgresql://127.0.0.1:1/x?password=****:"
                + " Connection refused");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void everyDatabaseCommandReportsAnUnreachableDatabaseTheSameWay() {
    for (String[] args :
        new String[][] {
          {"migrate"},
          {"dead-letters", "list"},
          {"dead-letters", "purge", "--all"},
          {"cleanup", "--older-than", "1d"}
        }) {
      CliRunner.Result r = new CliRunner().env("OUTBOX_JDBC_URL", UNREACHABLE).run(args);

      assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(ExitCodes.FAILURE);
      assertThat(r.errLines()).as(String.join(" ", args)).hasSize(1);
      assertThat(r.err())
          .startsWith("txoutbox: cannot reach the database")
          .doesNotContain("hunter2");
    }
  }

  @Test
  void theRelayWaitsForAnUnreachableDatabaseSayingSoOnceWithTheUrlMasked() throws Exception {
    CliRunner.Result r =
        new CliRunner()
            .env("OUTBOX_JDBC_URL", UNREACHABLE)
            .runUntilWaitingForTheDatabase(
                "relay", "--publisher", "rabbit", "--amqp-uri", "amqp://x", "--exchange", "x");

    // Stopped while it waited: exit 0, nothing on stderr, one WARN in the relay's log.
    assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
    assertThat(r.err()).doesNotContain("txoutbox:").doesNotContain("hunter2");
    assertThat(r.relayLogLines(CliRunner.WAITING_FOR_THE_DATABASE))
        .singleElement()
        .asString()
        .contains(
            "cannot reach the database at jdbc:postgresql://127.0.0.1:1/x?password=****:"
                + " Connection refused");
    assertThat(r.relayLog()).noneMatch(m -> m.contains("hunter2"));
  }

  @Test
  void verboseAddsTheStackTrace() {
    CliRunner.Result r = new CliRunner().run("--verbose", "status", "--jdbc-url", UNREACHABLE);

    assertThat(r.exitCode()).isEqualTo(ExitCodes.FAILURE);
    assertThat(r.errLines().get(0)).startsWith("txoutbox: cannot reach the database");
    assertThat(r.err()).contains("DatabaseUnavailableException").contains("\tat ");
  }

  @Test
  void helpAndVersionExitZero() {
    assertThat(new CliRunner().run("--help").exitCode()).isZero();
    assertThat(new CliRunner().run("relay", "--help").out()).contains("--metrics-port");
    assertThat(new CliRunner().run("--version").out()).startsWith("txoutbox ");
  }
}
