package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.txoutbox.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-type retry policies from {@code --retry-config} (or the {@code retry.*} keys of {@code
 * --publisher-config}) and the default policy's flags, as {@code status} (text and JSON) and the
 * relay's start-up line show them, and refused before anything starts when a value is bad.
 */
class RetryPoliciesCommandTest {

  private static final String UNREACHABLE = "jdbc:postgresql://127.0.0.1:1/x";

  private static final String POLICIES =
      "retry.event-type.payment.captured.max-attempts=200\n"
          + "retry.event-type.payment.captured.backoff-initial=5s\n"
          + "retry.event-type.payment.captured.backoff-max=30m\n"
          + "retry.event-type.payment.captured.max-age=1d\n"
          + "retry.aggregate-type.order.max-attempts=20\n";

  private TestDatabase db;
  private Path retry;

  @BeforeEach
  void setUp(@TempDir Path dir) throws Exception {
    db = TestDatabase.create("cli_retry");
    retry = Files.writeString(dir.resolve("retry.properties"), POLICIES);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void statusShowsTheDefaultPolicyOfTheFilesDefaultKeysUnderTheFlags(@TempDir Path dir)
      throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("defaults.properties"),
            "retry.default.max-attempts=15\n"
                + "retry.default.backoff-max=10m\n"
                + "retry.default.max-age=6h\n"
                + POLICIES);
    CliRunner cli = CliRunner.forDatabase(db);

    CliRunner.Result text =
        cli.run("status", "--backoff-jitter", "0", "--retry-config", file.toString());
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out().lines())
        .contains(
            "retry default:         max attempts 15, backoff 1s to 10m x2 jitter 0, max age 6h",
            "retry aggregate type:  order: max attempts 20, backoff 1s to 10m x2 jitter 0, max age"
                + " 6h");

    CliRunner.Result json = cli.run("status", "--json", "--retry-config", file.toString());
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode defaults =
        JsonMapper.builder().build().readTree(json.out()).get("retry_policies").get("default");
    assertThat(defaults.get("max_attempts").asInt()).isEqualTo(15);
    assertThat(defaults.get("backoff_max_seconds").asDouble()).isEqualTo(600.0);
    assertThat(defaults.get("max_age_seconds").asDouble()).isEqualTo(21600.0);
  }

  @Test
  void statusShowsThePoliciesOfTheRetryFlagsAsTextAndJson() throws Exception {
    new OutboxFixture(db).pending("order.created", 2);
    CliRunner cli = CliRunner.forDatabase(db);

    CliRunner.Result text =
        cli.run("status", "--max-age", "2h", "--retry-config", retry.toString());
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out().lines())
        .contains(
            "pending:               2",
            "retry default:         max attempts 10, backoff 1s to 5m x2 jitter 0.2, max age 2h",
            "retry event type:      payment.captured: max attempts 200, backoff 5s to 30m x2"
                + " jitter 0.2, max age 1d",
            // Not given in the file: the default's backoff and max age.
            "retry aggregate type:  order: max attempts 20, backoff 1s to 5m x2 jitter 0.2, max"
                + " age 2h");

    CliRunner.Result json =
        cli.run("status", "--json", "--max-age", "2h", "--retry-config", retry.toString());
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode policies = JsonMapper.builder().build().readTree(json.out()).get("retry_policies");
    assertThat(policies.get("default").toString())
        .isEqualTo(
            "{\"max_attempts\":10,\"backoff_initial_seconds\":1.0,\"backoff_max_seconds\":300.0,"
                + "\"backoff_multiplier\":2.0,\"backoff_jitter\":0.2,\"max_age_seconds\":7200.0}");
    JsonNode payment = policies.get("event_types").get("payment.captured");
    assertThat(payment.get("max_attempts").asInt()).isEqualTo(200);
    assertThat(payment.get("backoff_initial_seconds").asDouble()).isEqualTo(5.0);
    assertThat(payment.get("backoff_max_seconds").asDouble()).isEqualTo(1800.0);
    assertThat(payment.get("max_age_seconds").asDouble()).isEqualTo(86400.0);
    assertThat(policies.get("aggregate_types").get("order").get("max_attempts").asInt())
        .isEqualTo(20);

    // Without retry flags it claims no policy: it cannot know a running relay's.
    CliRunner.Result plain = cli.run("status", "--json");
    assertThat(plain.out()).doesNotContain("retry_policies");
    assertThat(cli.run("status").out()).doesNotContain("retry default");
  }

  @Test
  void theRelaysStartLineShowsThePoliciesInEffect() throws Exception {
    CliRunner.Result r =
        relayUntilWaiting(
            "--publisher",
            "rabbit",
            "--amqp-uri",
            "amqp://x",
            "--exchange",
            "x",
            "--max-attempts",
            "12",
            "--backoff-jitter",
            "0.5",
            "--max-age",
            "6h",
            "--retry-config",
            retry.toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.relayLogLines("relay 'default' starting"))
        .singleElement()
        .asString()
        .contains("max attempts 12, completion mark")
        .contains("backoff 1s to 5m x2 jitter 0.5, max age 6h, shutdown timeout 30s")
        .contains(
            "; retry policies: event type 'payment.captured' max attempts 200, backoff 5s to 30m"
                + " x2 jitter 0.5, max age 1d; aggregate type 'order' max attempts 20, backoff 1s"
                + " to 5m x2 jitter 0.5, max age 6h");
  }

  @Test
  void aBadPolicyExitsTwoBeforeTheRelayStarts(@TempDir Path dir) throws Exception {
    Path bad =
        Files.writeString(
            dir.resolve("bad.properties"), "retry.event-type.payment.captured.max-attempts=0\n");
    CliRunner.Result r =
        relayUntilWaiting(
            "--publisher",
            "rabbit",
            "--amqp-uri",
            "amqp://x",
            "--exchange",
            "x",
            "--retry-config",
            bad.toString());

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .contains(
            "--retry-config "
                + bad
                + ": retry.event-type.payment.captured.max-attempts must be a whole number"
                + " between 1 and 1000 but was '0'");
    assertThat(r.relayLog()).noneMatch(m -> m.contains("starting"));

    CliRunner.Result status =
        CliRunner.forDatabase(db).run("status", "--retry-config", bad.toString());
    assertThat(status.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(status.err()).contains("retry.event-type.payment.captured.max-attempts");
  }

  @Test
  void theRelayTakesThePoliciesFromTheRetryKeysOfItsPublisherConfig(@TempDir Path dir)
      throws Exception {
    Path publisher =
        Files.writeString(
            dir.resolve("rabbit.properties"),
            "amqp-uri=amqp://x\nexchange=x\nretry.default.max-attempts=12\n" + POLICIES);
    CliRunner.Result r =
        relayUntilWaiting(
            "--publisher",
            "rabbit",
            "--backoff-jitter",
            "0.5",
            "--publisher-config",
            publisher.toString());

    assertThat(r.exitCode()).as(r.err()).isZero();
    assertThat(r.relayLogLines("relay 'default' starting"))
        .singleElement()
        .asString()
        .contains("max attempts 12, completion mark")
        .contains(
            "; retry policies: event type 'payment.captured' max attempts 200, backoff 5s to 30m"
                + " x2 jitter 0.5, max age 1d; aggregate type 'order' max attempts 20, backoff 1s"
                + " to 5m x2 jitter 0.5");

    // status reads the same file's retry keys, and none of its publisher settings.
    CliRunner.Result status =
        CliRunner.forDatabase(db).run("status", "--publisher-config", publisher.toString());
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out().lines())
        .contains(
            "retry default:         max attempts 12, backoff 1s to 5m x2 jitter 0.2, no max age",
            "retry event type:      payment.captured: max attempts 200, backoff 5s to 30m x2"
                + " jitter 0.2, max age 1d");
    assertThat(status.out()).doesNotContain("amqp");
  }

  @Test
  void aBadPolicyInThePublisherConfigIsNamedByThatFileAndKey(@TempDir Path dir) throws Exception {
    Path publisher =
        Files.writeString(
            dir.resolve("rabbit.properties"),
            "amqp-uri=amqp://x\nexchange=x\nretry.event-type.p.max-attempts=0\n");
    CliRunner.Result r =
        relayUntilWaiting("--publisher", "rabbit", "--publisher-config", publisher.toString());

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .contains(
            "--publisher-config "
                + publisher
                + ": retry.event-type.p.max-attempts must be a whole number between 1 and 1000"
                + " but was '0'");
    assertThat(r.relayLog()).noneMatch(m -> m.contains("starting"));
  }

  @Test
  void retryKeysInBothFilesAreRefusedNamingBoth(@TempDir Path dir) throws Exception {
    Path publisher =
        Files.writeString(
            dir.resolve("rabbit.properties"),
            "amqp-uri=amqp://x\nexchange=x\nretry.event-type.p.max-attempts=3\n");
    CliRunner.Result r =
        relayUntilWaiting(
            "--publisher",
            "rabbit",
            "--publisher-config",
            publisher.toString(),
            "--retry-config",
            retry.toString());

    assertThat(r.exitCode()).isEqualTo(ExitCodes.USAGE);
    assertThat(r.err())
        .contains(
            "retry policies must be given in one file, but both --retry-config "
                + retry
                + " and --publisher-config "
                + publisher
                + " hold them ('retry.event-type.p.max-attempts')");
    assertThat(r.relayLog()).noneMatch(m -> m.contains("starting"));
  }

  /** The relay of {@code args}, run until it waits for its (unreachable) database. */
  private static CliRunner.Result relayUntilWaiting(String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = "relay";
    System.arraycopy(args, 0, command, 1, args.length);
    return new CliRunner()
        .env("OUTBOX_JDBC_URL", UNREACHABLE)
        .runUntilWaitingForTheDatabase(command);
  }
}
