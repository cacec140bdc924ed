package dev.txoutbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;

class TestClockTest {

  @Test
  void movesOnlyWhenToldAndItsZoneViewsShareTheInstant() {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    TestClock clock = TestClock.at(start);
    TestClock paris = clock.withZone(ZoneId.of("Europe/Paris"));

    assertThat(clock.advance(Duration.ofMinutes(5))).isEqualTo(start.plusSeconds(300));
    assertThat(paris.instant()).isEqualTo(start.plusSeconds(300));
    assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));

    paris.set(start);
    assertThat(clock.instant()).isEqualTo(start);
    assertThatThrownBy(() -> clock.advance(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("amount must not be negative but was PT-1S");
  }

  @Test
  void nowStartsAtMicrosecondsAsPostgresqlKeepsThem() {
    Instant now = TestClock.now().instant();
    assertThat(now).isEqualTo(now.truncatedTo(ChronoUnit.MICROS));
  }
}
