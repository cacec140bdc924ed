package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagNamesTest {

  private static final Map<String, String> FLAGS =
      Map.of(
          "workers", "--workers",
          "minPollInterval", "--min-poll-interval",
          "maxPollInterval", "--max-poll-interval",
          "uri", "--amqp-uri");

  @Test
  void namesFlagsAndDurationsAsTheCommandLineWritesThem() {
    assertThat(FlagNames.of("workers must be between 1 and 64 but was 65", FLAGS))
        .isEqualTo("--workers must be between 1 and 64 but was 65");
    assertThat(
            FlagNames.of(
                "maxPollInterval must be at least minPollInterval (PT0.3S) but was PT0.01S", FLAGS))
        .isEqualTo("--max-poll-interval must be at least --min-poll-interval (300ms) but was 10ms");
  }

  @Test
  void aPlainWordIsAFlagOnlyAsTheFirstWord() {
    assertThat(FlagNames.of("uri is not a valid AMQP URI: the uri has no host", FLAGS))
        .isEqualTo("--amqp-uri is not a valid AMQP URI: the uri has no host");
    assertThat(FlagNames.of("too many workers for PLAIN", FLAGS))
        .isEqualTo("too many workers for PLAIN");
  }

  @Test
  void aCamelCaseOptionOfAPublisherIsTheFlagOfItsSetting() {
    List<String> settings = List.of("send-timeout", "exchange", "amqp-uri");

    assertThat(FlagNames.ofSettings("sendTimeout must be positive but was PT0S", settings))
        .isEqualTo("--send-timeout must be positive but was 0ms");
    assertThat(FlagNames.ofSettings("exchange is longer than 255 characters", settings))
        .isEqualTo("--exchange is longer than 255 characters");
    assertThat(FlagNames.ofSettings("confirmTimeout must be positive: PT0S", settings))
        .as("a name that is no setting stays")
        .isEqualTo("confirmTimeout must be positive: 0ms");
    assertThat(FlagNames.ofSettings("the exchange x is gone", settings))
        .isEqualTo("the exchange x is gone");
  }

  @Test
  void kebabCaseReadsAsCamelCase() {
    assertThat(FlagNames.camelCase("send-timeout")).isEqualTo("sendTimeout");
    assertThat(FlagNames.camelCase("sqs-region2")).isEqualTo("sqsRegion2");
    assertThat(FlagNames.camelCase("exchange")).isEqualTo("exchange");
  }
}
