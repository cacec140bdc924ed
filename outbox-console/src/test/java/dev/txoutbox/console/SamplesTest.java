package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The charts' ring buffer keeps the newest hour, oldest first. */
class SamplesTest {

  @Test
  void aFullBufferDropsTheOldestAndKeepsTheOrder() {
    Samples samples = new Samples(3);
    for (int i = 1; i <= 5; i++) {
      samples.add(new Samples.Point(i, i * 10, i / 2.0));
    }

    assertThat(samples.points()).extracting(Samples.Point::pending).containsExactly(30L, 40L, 50L);
    assertThat(samples.json().get("t")).isEqualTo(java.util.List.of(3L, 4L, 5L));
  }

  @Test
  void anHourOfSamplesAtTheInterval() {
    assertThat(Sampler.capacity(Duration.ofSeconds(10))).isEqualTo(360);
    assertThat(Sampler.capacity(Duration.ofMinutes(10))).isEqualTo(6);
    assertThatThrownBy(
            () ->
                OutboxConsole.builder()
                    .outbox("x", dev.txoutbox.schema.OutboxTables.in("x"))
                    .sampleInterval(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("sampleInterval must be between 1s and 10m but was PT0.5S");
  }
}
