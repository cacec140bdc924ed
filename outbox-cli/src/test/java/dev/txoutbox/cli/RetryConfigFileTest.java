package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The retry flags and the {@code --retry-config} file as the relay reads them: the {@link
 * RelayConfig} they build, which policy decides which event, and every refusal naming the key.
 */
class RetryConfigFileTest {

  private static final RetryPolicy DEFAULTS = RetryPolicy.of(10, Backoff.defaults());

  @Test
  void typesWithDotsAreReadUpToTheLastPartAndEachPolicyReachesTheRelayConfig(@TempDir Path dir)
      throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("retry.properties"),
            "retry.event-type.payment.captured.max-attempts=200\n"
                + "retry.event-type.payment.captured.backoff-initial=5s\n"
                + "retry.event-type.payment.captured.backoff-max=30m\n"
                + "retry.event-type.payment.captured.max-age=1d\n"
                + "retry.event-type.cache.invalidated.max-age=1m\n"
                + "retry.event-type.cache.invalidated.backoff-jitter=0\n"
                // A type whose own name ends in what looks like a setting word: still a type.
                + "retry.event-type.a.max-attempts.max-attempts=3\n"
                + "retry.aggregate-type.order.max-attempts=20\n"
                + "retry.aggregate-type.order.backoff-multiplier=1.5\n"
                + "retry.aggregate-type.order.max-age=none\n");

    RelayConfig c =
        config("--max-attempts", "7", "--max-age", "2h", "--retry-config", file.toString());

    Backoff defaults = Backoff.defaults();
    assertThat(c.defaultRetryPolicy())
        .isEqualTo(RetryPolicy.of(7, defaults).withMaxAge(Duration.ofHours(2)));
    assertThat(c.eventTypeRetryPolicies())
        .containsExactly(
            Map.entry(
                "payment.captured",
                RetryPolicy.of(
                        200,
                        new Backoff(
                            Duration.ofSeconds(5),
                            Duration.ofMinutes(30),
                            defaults.multiplier(),
                            defaults.jitter()))
                    .withMaxAge(Duration.ofDays(1))),
            // Not given: the default policy's attempts and backoff shape.
            Map.entry(
                "cache.invalidated",
                RetryPolicy.of(7, defaults.withJitter(0)).withMaxAge(Duration.ofMinutes(1))),
            Map.entry(
                "a.max-attempts", RetryPolicy.of(3, defaults).withMaxAge(Duration.ofHours(2))));
    // max-age=none: no age limit although the default has one.
    assertThat(c.aggregateTypeRetryPolicies())
        .containsExactly(Map.entry("order", RetryPolicy.of(20, defaults.withMultiplier(1.5))));

    assertThat(c.retryPolicy(message("order", "payment.captured")).maxAttempts()).isEqualTo(200);
    assertThat(c.retryPolicy(message("order", "order.created")).maxAttempts()).isEqualTo(20);
    assertThat(c.retryPolicy(message("invoice", "invoice.created")))
        .isSameAs(c.defaultRetryPolicy());
  }

  @Test
  void theFilesDefaultKeysSetTheDefaultPolicyWhichTheFlagsOverrideAndEachTypeInherits(
      @TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("retry.properties"),
            "retry.default.max-attempts=25\n"
                + "retry.default.backoff-initial=2s\n"
                + "retry.default.backoff-max=10m\n"
                + "retry.default.backoff-multiplier=3\n"
                + "retry.default.backoff-jitter=0\n"
                + "retry.default.max-age=6h\n"
                + "retry.event-type.payment.captured.max-attempts=200\n");

    RelayConfig fromFile = config("--retry-config", file.toString());
    Backoff fileBackoff = new Backoff(Duration.ofSeconds(2), Duration.ofMinutes(10), 3, 0);
    assertThat(fromFile.defaultRetryPolicy())
        .isEqualTo(RetryPolicy.of(25, fileBackoff).withMaxAge(Duration.ofHours(6)));
    assertThat(fromFile.eventTypeRetryPolicies())
        .containsExactly(
            Map.entry(
                "payment.captured",
                RetryPolicy.of(200, fileBackoff).withMaxAge(Duration.ofHours(6))));

    RelayConfig overridden =
        config("--max-attempts", "4", "--backoff-jitter", "0.5", "--retry-config", file.toString());
    Backoff mixed = fileBackoff.withJitter(0.5);
    assertThat(overridden.defaultRetryPolicy())
        .isEqualTo(RetryPolicy.of(4, mixed).withMaxAge(Duration.ofHours(6)));
    assertThat(overridden.eventTypeRetryPolicies().get("payment.captured"))
        .isEqualTo(RetryPolicy.of(200, mixed).withMaxAge(Duration.ofHours(6)));
  }

  @Test
  void aRuleBrokenBetweenAFlagAndADefaultKeyNamesBoth(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("retry.properties"),
            "retry.default.backoff-initial=2m\nretry.event-type.p.backoff-max=1m\n");
    assertThatThrownBy(() -> config("--backoff-max", "1m", "--retry-config", file.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--retry-config "
                + file
                + ": --backoff-max must be at least retry.default.backoff-initial (2m) but was"
                + " 1m");
    assertThatThrownBy(() -> config("--retry-config", file.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--retry-config "
                + file
                + ": retry.event-type.p.backoff-max must be at least"
                + " retry.default.backoff-initial (2m) but was 1m");
  }

  @Test
  void theDefaultPolicyFlagsSetTheWholeBackoff() {
    RelayConfig c =
        config(
            "--backoff-initial",
            "2s",
            "--backoff-max",
            "1m",
            "--backoff-multiplier",
            "3",
            "--backoff-jitter",
            "0.5");
    assertThat(c.backoff())
        .isEqualTo(new Backoff(Duration.ofSeconds(2), Duration.ofMinutes(1), 3, 0.5));
    assertThat(c.maxAge()).isNull();
    assertThat(RetryPolicyText.describe(c.defaultRetryPolicy()))
        .isEqualTo("max attempts 10, backoff 2s to 1m x3 jitter 0.5, no max age");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "retry.event-type.p.max-attempts=0"
            + " | retry.event-type.p.max-attempts must be a whole number between 1 and 1000 but"
            + " was '0'",
        "retry.event-type.p.max-attempts=1001"
            + " | retry.event-type.p.max-attempts must be a whole number between 1 and 1000 but"
            + " was '1001'",
        "retry.event-type.p.max-attempts=ten"
            + " | retry.event-type.p.max-attempts must be a whole number between 1 and 1000 but"
            + " was 'ten'",
        "retry.event-type.p.backoff-initial=0ms"
            + " | retry.event-type.p.backoff-initial must be positive but was 0ms",
        "retry.event-type.p.backoff-initial=soon"
            + " | retry.event-type.p.backoff-initial must be a duration",
        "retry.event-type.p.backoff-max=500ms"
            + " | retry.event-type.p.backoff-max must be at least --backoff-initial (1s) but was"
            + " 500ms",
        "retry.aggregate-type.order.backoff-multiplier=0.5"
            + " | retry.aggregate-type.order.backoff-multiplier must be at least 1 but was 0.5",
        "retry.aggregate-type.order.backoff-jitter=1.5"
            + " | retry.aggregate-type.order.backoff-jitter must be between 0 and 1 but was 1.5",
        "retry.aggregate-type.order.backoff-jitter=NaN"
            + " | retry.aggregate-type.order.backoff-jitter must be a number but was 'NaN'",
        "retry.event-type.p.max-age=0s"
            + " | retry.event-type.p.max-age must be positive (or none) but was 0ms",
        "retry.event-type.p.max-atempts=3"
            + " | the last part of key 'retry.event-type.p.max-atempts' must be a setting, one of"
            + " max-attempts, backoff-initial, backoff-max, backoff-multiplier, backoff-jitter,"
            + " max-age, but was 'max-atempts'",
        "retry.event-type.payment.captured=3"
            + " | the last part of key 'retry.event-type.payment.captured' must be a setting",
        "retry.event-type.max-attempts=3"
            + " | the type in key 'retry.event-type.max-attempts' must be 1 to 255 characters,"
            + " not blank, between retry.event-type. and .max-attempts but was ''",
        "retry.default.max-atempts=3"
            + " | the last part of key 'retry.default.max-atempts' must be a setting, one of"
            + " max-attempts, backoff-initial, backoff-max, backoff-multiplier, backoff-jitter,"
            + " max-age, but was 'max-atempts'",
        "retry.default.max-attempts=0"
            + " | retry.default.max-attempts must be a whole number between 1 and 1000 but was '0'",
        "retry.default.backoff-max=500ms"
            + " | retry.default.backoff-max must be at least --backoff-initial (1s) but was 500ms",
        "retry.default.max-age=0s"
            + " | retry.default.max-age must be positive (or none) but was 0ms",
        "max-attempts=3"
            + " | a key must be retry.event-type.TYPE.SETTING, retry.aggregate-type.TYPE.SETTING or"
            + " retry.default.SETTING but was 'max-attempts'",
      })
  void aBadKeyOrValueIsRefusedNamingTheKeyAndTheLimit(
      String line, String message, @TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("retry.properties"), line + "\n");
    assertThatThrownBy(() -> config("--retry-config", file.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--retry-config " + file + ": " + message);
  }

  @Test
  void aTypeLongerThanTheColumnIsRefused() {
    String type = "t".repeat(256);
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put("retry.aggregate-type." + type + ".max-attempts", "3");
    assertThatThrownBy(() -> RetryConfigFile.parse(entries, DEFAULTS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be 1 to 255 characters");
  }

  @Test
  void aKeyGivenTwiceIsRefused(@TempDir Path dir) throws Exception {
    Path file =
        Files.writeString(
            dir.resolve("retry.properties"),
            "retry.event-type.p.max-attempts=3\nretry.event-type.p.max-attempts = 4\n");
    assertThatThrownBy(() -> config("--retry-config", file.toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a key of --retry-config "
                + file
                + " must be given once but 'retry.event-type.p.max-attempts' is twice");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--max-attempts 0 | --max-attempts must be between 1 and 1000 but was 0",
        "--backoff-initial 0ms | --backoff-initial must be positive but was 0ms",
        "--backoff-initial 10m | --backoff-max must be at least --backoff-initial (10m) but was 5m",
        "--backoff-multiplier 0.9 | --backoff-multiplier must be at least 1 but was 0.9",
        "--backoff-jitter -1 | --backoff-jitter must be between 0 and 1 but was -1",
        "--max-age 0s | --max-age must be positive but was 0ms",
      })
  void aBadFlagIsRefusedNamingTheFlagAndTheLimit(String flags, String message) {
    assertThatThrownBy(() -> config(flags.split(" ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  /** The relay configuration {@code args} (retry flags) make, as the relay command applies them. */
  private static RelayConfig config(String... args) {
    CommandLine holder = new CommandLine(CommandSpec.create().name("holder"));
    RetryFlags.install(holder.getCommandSpec(), "%nRetry:%n", 1);
    RelayConfig.Builder b = RelayConfig.builder();
    RetryFlags.of(holder.parseArgs(args)).applyTo(b);
    return b.build();
  }

  private static OutboxMessage message(String aggregateType, String eventType) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId("a-1")
        .eventType(eventType)
        .createdAt(Instant.EPOCH)
        .build();
  }
}
