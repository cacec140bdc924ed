package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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
}
