package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class DurationsTest {

  @Test
  void readsShortForms() {
    assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Durations.parse("30m")).isEqualTo(Duration.ofMinutes(30));
    assertThat(Durations.parse("12h")).isEqualTo(Duration.ofHours(12));
    assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
    assertThat(Durations.parse("7D")).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void readsIso8601() {
    assertThat(Durations.parse("PT30M")).isEqualTo(Duration.ofMinutes(30));
    assertThat(Durations.parse("P7D")).isEqualTo(Duration.ofDays(7));
    assertThat(Durations.parse("pt1h30m")).isEqualTo(Duration.ofMinutes(90));
  }

  @Test
  void rejectsAnythingElse() {
    for (String bad : new String[] {"", "7", "7 days", "-1d", "PT-5M", "1w", "d"}) {
      assertThatThrownBy(() -> Durations.parse(bad))
          .as(bad)
          .isInstanceOf(TypeConversionException.class);
    }
  }

  @Test
  void saysWhatADurationMustBe() {
    assertThatThrownBy(() -> Durations.parse("soon"))
        .hasMessage(
            "must be a duration such as 500ms, 30s, 4m 5s, 12h, 7d or ISO-8601 (PT30M) but was"
                + " 'soon'");
    assertThatThrownBy(() -> Durations.parse("-1d"))
        .hasMessage(
            "must be a duration such as 500ms, 30s, 4m 5s, 12h, 7d or ISO-8601 (PT30M) but was '-1d'");
    assertThatThrownBy(() -> Durations.parse("PT-5M"))
        .hasMessage("must not be negative but was 'PT-5M'");
  }

  @Test
  void readsWhatTheRelayLogsAndItWrites() {
    assertThat(Durations.parse("1.25s")).isEqualTo(Duration.ofMillis(1250));
    assertThat(Durations.parse("4m 5s")).isEqualTo(Duration.ofSeconds(245));
    assertThat(Durations.parse("7d 2h")).isEqualTo(Duration.ofDays(7).plusHours(2));
    assertThat(Durations.parse("0.5ms")).isEqualTo(Duration.ofNanos(500_000));
    for (Duration d :
        new Duration[] {
          Duration.ofMillis(300),
          Duration.ofMillis(1250),
          Duration.ofSeconds(1),
          Duration.ofSeconds(30),
          Duration.ofSeconds(90),
          Duration.ofMinutes(5),
          Duration.ofHours(12).plusMinutes(3),
          Duration.ofDays(36_500)
        }) {
      assertThat(Durations.parse(Durations.format(d))).as(Durations.format(d)).isEqualTo(d);
    }
    assertThat(Durations.format(Duration.ofSeconds(1))).isEqualTo("1s");
    assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1.5s");
  }

  @Test
  void rewritesIsoDurationsInText() {
    assertThat(
            Durations.inText(
                "RelayConfig[minPollInterval=PT0.025S, maxPollInterval=PT1S, keep=P7D];"
                    + " retrying in PT1.2345S: PLAIN PT"))
        .isEqualTo(
            "RelayConfig[minPollInterval=25ms, maxPollInterval=1s, keep=7d];"
                + " retrying in 1.23s: PLAIN PT");
    assertThat(Durations.inText(null)).isNull();
  }
}
