package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * One definition per option: the builders' errors and a tool's errors say the same rule, each in
 * its own words, and what {@code --help} and the docs show comes from the same place.
 */
class RelayOptionsTest {

  /** A command line's words: flags, and durations as people write them. */
  private static final RelayOption.Spelling FLAGS =
      new RelayOption.Spelling() {
        @Override
        public String name(RelayOption<?> option) {
          return "--" + option.key();
        }

        @Override
        public String value(Object value) {
          return value instanceof Duration d ? DurationText.of(d) : String.valueOf(value);
        }
      };

  @Test
  void theBuilderAndAToolSayTheSameRuleInTheirOwnWords() {
    assertThatThrownBy(() -> RelayConfig.builder().workers(65).build())
        .hasMessage("workers must be between 1 and 64 but was 65");
    assertThatThrownBy(() -> RelayOptions.WORKERS.check(65, null, FLAGS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--workers must be between 1 and 64 but was 65");

    assertThatThrownBy(
            () ->
                RelayConfig.builder()
                    .minPollInterval(Duration.ofMillis(300))
                    .maxPollInterval(Duration.ofMillis(10))
                    .build())
        .hasMessage("maxPollInterval must be at least minPollInterval (PT0.3S) but was PT0.01S");
    assertThatThrownBy(
            () ->
                RelayOptions.MAX_POLL_INTERVAL.check(
                    Duration.ofMillis(10), Duration.ofMillis(300), FLAGS))
        .hasMessage(
            "--max-poll-interval must be at least --min-poll-interval (300ms) but was 10ms");

    assertThatThrownBy(() -> RelayConfig.builder().name("no spaces").build())
        .hasMessage("name must be 1 to 64 characters of [A-Za-z0-9_.-] but was 'no spaces'");
    assertThatThrownBy(() -> RelayOptions.NAME.check("no spaces", null, FLAGS))
        .hasMessage(
            "--relay-name must be 1 to 64 characters of [A-Za-z0-9_.-] but was 'no spaces'");
  }

  @Test
  void backoffAndRetryPolicyCheckWithTheSameDefinitions() {
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 2, 0))
        .hasMessage("initialDelay must be positive but was PT0S");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2, 0))
        .hasMessage("maxDelay must be at least initialDelay (PT2S) but was PT1S");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 0.5, 0))
        .hasMessage("multiplier must be at least 1 but was 0.5");
    assertThatThrownBy(
            () -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), Double.NaN, 0))
        .hasMessage("multiplier must be at least 1 but was NaN");
    assertThatThrownBy(
            () ->
                new Backoff(
                    Duration.ofSeconds(1), Duration.ofSeconds(1), Double.POSITIVE_INFINITY, 0))
        .hasMessage("multiplier must be at least 1 but was Infinity");
    assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 1.5))
        .hasMessage("jitter must be between 0 and 1 but was 1.5");
    assertThatThrownBy(() -> RetryPolicy.of(0, Backoff.defaults()))
        .hasMessage("maxAttempts must be between 1 and 1000 but was 0");
    assertThatThrownBy(() -> RelayConfig.builder().maxAge(Duration.ZERO))
        .hasMessage("maxAge must be positive but was PT0S");
    assertThatThrownBy(() -> RelayOptions.BACKOFF_JITTER.check(1.5, null, FLAGS))
        .hasMessage("--backoff-jitter must be between 0 and 1 but was 1.5");
  }

  @Test
  void theDefaultsAreThoseOfTheBuilders() {
    RelayConfig d = RelayConfig.defaults();
    assertThat(RelayOptions.NAME.defaultValue()).isEqualTo(d.name());
    assertThat(RelayOptions.BATCH_SIZE.defaultValue()).isEqualTo(d.batchSize());
    assertThat(RelayOptions.WORKERS.defaultValue()).isEqualTo(d.workers());
    assertThat(RelayOptions.MIN_POLL_INTERVAL.defaultValue()).isEqualTo(d.minPollInterval());
    assertThat(RelayOptions.MAX_POLL_INTERVAL.defaultValue()).isEqualTo(d.maxPollInterval());
    assertThat(RelayOptions.MAX_ATTEMPTS.defaultValue()).isEqualTo(d.maxAttempts());
    assertThat(RelayOptions.BACKOFF_INITIAL.defaultValue()).isEqualTo(d.backoff().initialDelay());
    assertThat(RelayOptions.BACKOFF_MAX.defaultValue()).isEqualTo(d.backoff().maxDelay());
    assertThat(RelayOptions.BACKOFF_MULTIPLIER.defaultValue()).isEqualTo(d.backoff().multiplier());
    assertThat(RelayOptions.BACKOFF_JITTER.defaultValue()).isEqualTo(d.backoff().jitter());
    assertThat(RelayOptions.MAX_AGE.defaultValue()).isEqualTo(d.maxAge()).isNull();
    assertThat(RelayOptions.COMPLETION_MODE.defaultValue()).isEqualTo(d.completionMode());
    assertThat(RelayOptions.ORDERING.defaultValue()).isEqualTo(d.ordering());
    assertThat(RelayOptions.SHUTDOWN_TIMEOUT.defaultValue()).isEqualTo(d.shutdownTimeout());
    assertThat(RelayOptions.BROKER_PROBE_BACKOFF.defaultValue()).isEqualTo(d.brokerProbeBackoff());
  }

  @Test
  void helpAndDocsShowDefaultsAsTheCommandLineWritesThem() {
    assertThat(RelayOptions.MIN_POLL_INTERVAL.defaultText()).isEqualTo("25ms");
    assertThat(RelayOptions.BACKOFF_MULTIPLIER.defaultText()).isEqualTo("2");
    assertThat(RelayOptions.COMPLETION_MODE.defaultText()).isEqualTo("mark");
    assertThat(RelayOptions.ORDERING.words())
        .containsExactly(
            java.util.Map.entry("NONE", "none"),
            java.util.Map.entry("PER_AGGREGATE", "per-aggregate"),
            java.util.Map.entry(
                "PER_AGGREGATE_SKIP_DEAD_LETTERS", "per-aggregate-skip-dead-letters"));
    assertThat(RelayOptions.MAX_AGE.defaultText()).isEqualTo("none");
    assertThat(RelayOptions.BROKER_PROBE_BACKOFF.defaultText())
        .isEqualTo("1s to 30s x2 jitter 0.2");
    assertThat(RelayOptions.MAX_POLL_INTERVAL.bounds(RelayOption.Spelling.API))
        .isEqualTo("at least minPollInterval");
    assertThat(RelayOptions.BATCH_SIZE.bounds(FLAGS)).isEqualTo("1 to 10000");
  }

  @Test
  void aModuleDefinesSwitchesOnByDefaultAndDefaultsSaidInWords() {
    RelayOption<Boolean> create =
        RelayOption.onOff("createIfMissing", "createIfMissing", "create-slot", true, "y");
    assertThat(create.defaultValue()).isTrue();
    assertThat(create.flag()).isEqualTo("--no-create-slot");
    assertThat(RelayOptions.LISTEN.flag()).isEqualTo("--listen");
    assertThat(RelayOptions.BROKER_PROBE_BACKOFF.flag()).isNull();

    RelayOption<String> slot =
        RelayOption.text(
                "slotName",
                "slot",
                "NAME",
                null,
                java.util.regex.Pattern.compile("[a-z]+"),
                "lower case letters",
                "z")
            .withDefaultText("txoutbox_<schema>");
    assertThat(slot.defaultValue()).isNull();
    assertThat(slot.defaultText()).isEqualTo("txoutbox_<schema>");
    assertThat(slot.key()).isEqualTo("slot");
    assertThatThrownBy(() -> slot.check("A"))
        .hasMessage("slotName must be lower case letters but was 'A'");
    assertThatThrownBy(() -> slot.check("a\u0000b"))
        .hasMessage("slotName must be lower case letters but was 'a\\u0000b'");
  }

  /** A module's own rule ({@link RelayOption#of}): a text that must be a reference, never shown. */
  private static final RelayOption<String> REFERENCE =
      RelayOption.of(
              "password",
              "password",
              "password-ref",
              RelayOption.Type.TEXT,
              "REF",
              null,
              null,
              new RelayOption.Rule<String>() {
                @Override
                public @Nullable String violation(
                    String v, @Nullable String other, RelayOption.Spelling s) {
                  return v.startsWith("env:") ? null : "must be env:NAME";
                }

                @Override
                public String describe(RelayOption.Spelling s) {
                  return "env:NAME";
                }

                @Override
                public String shown(String v, RelayOption.Spelling s) {
                  return "not (value hidden)";
                }
              },
              "where the password is")
          .withDefaultText("the driver's own");

  @Test
  void aModulesOwnRuleSaysItsWordsAndShowsWhatItChooses() {
    assertThat(REFERENCE.check("env:PW")).isEqualTo("env:PW");
    assertThatThrownBy(() -> REFERENCE.check("hunter2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("password must be env:NAME but was not (value hidden)");
    assertThatThrownBy(() -> REFERENCE.check("hunter2", null, FLAGS))
        .hasMessage("--password-ref must be env:NAME but was not (value hidden)");
    assertThat(REFERENCE.bounds(FLAGS)).isEqualTo("env:NAME");
    assertThat(REFERENCE.defaultValue()).isNull();
    assertThat(REFERENCE.defaultText()).isEqualTo("the driver's own");
  }

  @Test
  void onlyAnOptionWithoutADefaultValueSaysItsDefaultInWords() {
    assertThatThrownBy(() -> RelayOptions.BATCH_SIZE.withDefaultText("many"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "option batchSize must have no default value to say its default in words but has");
    assertThatThrownBy(
            () ->
                RelayOption.of(
                    "mode",
                    "mode",
                    "mode",
                    RelayOption.Type.CHOICE,
                    "MODE",
                    null,
                    null,
                    new RelayOption.Rule<Object>() {
                      @Override
                      public @Nullable String violation(
                          Object v, @Nullable Object other, RelayOption.Spelling s) {
                        return null;
                      }

                      @Override
                      public String describe(RelayOption.Spelling s) {
                        return "";
                      }
                    },
                    "a mode"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("option mode must be made by its type's own factory but was of type CHOICE");
  }
}
