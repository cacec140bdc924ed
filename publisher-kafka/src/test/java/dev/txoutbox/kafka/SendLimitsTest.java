package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SendLimitsTest {

  @Test
  void followsTheSendTimeoutByDefault() {
    SendLimits limits =
        SendLimits.of(ProducerSettings.effective(Map.of(), "k:9092", Duration.ofSeconds(30)));

    assertThat(limits.maxBlock()).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.deliveryTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.margin()).isEqualTo(Duration.ofSeconds(3));
    assertThat(limits.outcomeWait()).isEqualTo(Duration.ofSeconds(33));
    assertThat(limits.batchBound()).isEqualTo(Duration.ofSeconds(93));
  }

  @Test
  void followsTheProducersOwnSettingsWhenTheUserSetsThem() {
    SendLimits limits =
        SendLimits.of(
            ProducerSettings.effective(
                Map.of("delivery.timeout.ms", "120000", "max.block.ms", 5_000),
                "k:9092",
                Duration.ofSeconds(30)));

    assertThat(limits.maxBlock()).isEqualTo(Duration.ofSeconds(5));
    assertThat(limits.deliveryTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(limits.outcomeWait()).isEqualTo(Duration.ofSeconds(132));
  }

  @Test
  void theMarginIsAtLeastOneSecond() {
    SendLimits limits = new SendLimits(Duration.ofMillis(200), Duration.ofMillis(200));

    assertThat(limits.margin()).isEqualTo(SendLimits.MIN_MARGIN);
    assertThat(limits.outcomeWait()).isEqualTo(Duration.ofMillis(1_200));
  }
}
