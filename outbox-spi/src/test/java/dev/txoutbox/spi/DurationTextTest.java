package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DurationTextTest {

  @Test
  void underAMinuteInMillisecondsOrSecondsWithUpToTwoDecimals() {
    assertThat(DurationText.of(Duration.ZERO)).isEqualTo("0ms");
    assertThat(DurationText.of(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(DurationText.of(Duration.ofSeconds(1))).isEqualTo("1s");
    assertThat(DurationText.of(Duration.ofMillis(1500))).isEqualTo("1.5s");
    assertThat(DurationText.of(Duration.ofMillis(1250))).isEqualTo("1.25s");
  }

  @Test
  void fromAMinuteOnInWholeUnitsLeavingOutZerosAndTheSecondsOfDays() {
    assertThat(DurationText.of(Duration.ofSeconds(245))).isEqualTo("4m 5s");
    assertThat(DurationText.of(Duration.ofMinutes(192))).isEqualTo("3h 12m");
    assertThat(DurationText.of(Duration.ofHours(1).plusSeconds(3))).isEqualTo("1h 3s");
    assertThat(DurationText.of(Duration.ofDays(7))).isEqualTo("7d");
    assertThat(DurationText.of(Duration.ofDays(7).plusHours(2).plusSeconds(9))).isEqualTo("7d 2h");
  }

  @Test
  void parseReadsBothFormsAndRefusesTheRest() {
    assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationText.parse(" 4m 5s ")).isEqualTo(Duration.ofSeconds(245));
    assertThat(DurationText.parse("1.25S")).isEqualTo(Duration.ofMillis(1250));
    assertThat(DurationText.parse("PT30M")).isEqualTo(Duration.ofMinutes(30));
    assertThat(DurationText.parse("p7d")).isEqualTo(Duration.ofDays(7));
    assertThatThrownBy(() -> DurationText.parse("soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("must be a duration such as")
        .hasMessageEndingWith("but was 'soon'");
    assertThatThrownBy(() -> DurationText.parse("PT-1S"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must not be negative but was 'PT-1S'");
  }

  /** What a log line shows can be given back as a flag: parse(of(d)) is d, at of's precision. */
  @Test
  void parseReadsBackWhatOfWrites() {
    SplittableRandom random = new SplittableRandom(20261201L);
    for (int i = 0; i < 10_000; i++) {
      Duration d =
          switch (i % 3) {
            case 0 ->
                Duration.ofMillis(random.nextLong(60_000))
                    .truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
            case 1 -> Duration.ofSeconds(60 + random.nextLong(86_400 - 60));
            default ->
                Duration.ofMinutes(
                    1440 * (1 + random.nextLong(400))
                        + 60 * random.nextLong(24)
                        + random.nextLong(60));
          };
      Duration shown = DurationText.parse(DurationText.of(d));
      // of() keeps milliseconds under a second, two decimals of seconds under a minute, whole
      // seconds under a day and whole hours from a day on.
      Duration precision =
          d.compareTo(Duration.ofSeconds(1)) < 0
              ? Duration.ZERO
              : d.compareTo(Duration.ofMinutes(1)) < 0
                  ? Duration.ofMillis(5)
                  : d.compareTo(Duration.ofDays(1)) < 0 ? Duration.ZERO : Duration.ofMinutes(1);
      assertThat(shown.minus(d).abs())
          .as("%s shown as %s", d, DurationText.of(d))
          .isLessThanOrEqualTo(precision);
    }
  }
}
