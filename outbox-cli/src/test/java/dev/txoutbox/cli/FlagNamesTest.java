package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
}
