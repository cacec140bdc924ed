package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RelayConfigTest {

  private static RelayConfig everythingChanged() {
    return RelayConfig.builder()
        .name("billing")
        .batchSize(500)
        .workers(2)
        .minPollInterval(Duration.ofMillis(10))
        .maxPollInterval(Duration.ofSeconds(2))
        .maxAttempts(5)
        .backoff(Backoff.exponential(Duration.ofMillis(1250), Duration.ofMinutes(2)))
        .completionMode(CompletionMode.DELETE)
        .shutdownTimeout(Duration.ofSeconds(5))
        .ordering(Ordering.PER_AGGREGATE)
        .brokerProbeBackoff(new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(20), 3.0, 0.0))
        .build();
  }

  @Test
  void isAFinalClassThatOnlyTheBuilderMakes() {
    assertThat(RelayConfig.class.isRecord()).isFalse();
    assertThat(Modifier.isFinal(RelayConfig.class.getModifiers())).isTrue();
    assertThat(RelayConfig.class.getConstructors()).isEmpty();
    assertThat(Arrays.stream(RelayConfig.class.getDeclaredConstructors()))
        .allMatch(c -> Modifier.isPrivate(c.getModifiers()));
  }

  @Test
  void accessorsReturnWhatTheBuilderWasGivenAndDefaultsOtherwise() {
    RelayConfig c = everythingChanged();
    assertThat(c.name()).isEqualTo("billing");
    assertThat(c.batchSize()).isEqualTo(500);
    assertThat(c.workers()).isEqualTo(2);
    assertThat(c.minPollInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(c.maxPollInterval()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.maxAttempts()).isEqualTo(5);
    assertThat(c.backoff().initialDelay()).isEqualTo(Duration.ofMillis(1250));
    assertThat(c.completionMode()).isEqualTo(CompletionMode.DELETE);
    assertThat(c.shutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.ordering()).isEqualTo(Ordering.PER_AGGREGATE);
    assertThat(c.brokerProbeBackoff().multiplier()).isEqualTo(3.0);

    RelayConfig d = RelayConfig.defaults();
    assertThat(d.name()).isEqualTo(RelayConfig.DEFAULT_NAME);
    assertThat(d.batchSize()).isEqualTo(RelayConfig.DEFAULT_BATCH_SIZE);
    assertThat(d.workers()).isEqualTo(RelayConfig.DEFAULT_WORKERS);
    assertThat(d.minPollInterval()).isEqualTo(RelayConfig.DEFAULT_MIN_POLL_INTERVAL);
    assertThat(d.maxPollInterval()).isEqualTo(RelayConfig.DEFAULT_MAX_POLL_INTERVAL);
    assertThat(d.maxAttempts()).isEqualTo(RelayConfig.DEFAULT_MAX_ATTEMPTS);
    assertThat(d.backoff()).isEqualTo(Backoff.defaults());
    assertThat(d.completionMode()).isEqualTo(CompletionMode.MARK_PROCESSED);
    assertThat(d.shutdownTimeout()).isEqualTo(RelayConfig.DEFAULT_SHUTDOWN_TIMEOUT);
    assertThat(d.ordering()).isEqualTo(Ordering.NONE);
    assertThat(d.brokerProbeBackoff()).isEqualTo(RelayConfig.DEFAULT_BROKER_PROBE_BACKOFF);
  }

  @Test
  void toBuilderDerivesAnEqualConfigurationThatCanBeChangedWithoutTouchingTheOriginal() {
    RelayConfig original = everythingChanged();
    RelayConfig copy = original.toBuilder().build();
    assertThat(copy).isEqualTo(original).hasSameHashCodeAs(original).isNotSameAs(original);
    assertThat(copy.toString()).isEqualTo(original.toString());

    RelayConfig.Builder builder = original.toBuilder().workers(8);
    RelayConfig derived = builder.build();
    builder.workers(9);
    assertThat(derived.workers()).as("build() copies: the builder cannot change it").isEqualTo(8);
    assertThat(original.workers()).isEqualTo(2);
    assertThat(derived).isNotEqualTo(original);
    assertThat(derived.toBuilder().workers(2).build()).isEqualTo(original);
  }

  @Test
  void equalsComparesEverySetting() {
    RelayConfig base = everythingChanged();
    RelayConfig[] oneChanged = {
      base.toBuilder().name("other").build(),
      base.toBuilder().batchSize(501).build(),
      base.toBuilder().workers(3).build(),
      base.toBuilder().minPollInterval(Duration.ofMillis(11)).build(),
      base.toBuilder().maxPollInterval(Duration.ofSeconds(3)).build(),
      base.toBuilder().maxAttempts(6).build(),
      base.toBuilder().backoff(Backoff.defaults()).build(),
      base.toBuilder().completionMode(CompletionMode.MARK_PROCESSED).build(),
      base.toBuilder().shutdownTimeout(Duration.ofSeconds(6)).build(),
      base.toBuilder().ordering(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS).build(),
      base.toBuilder().brokerProbeBackoff(RelayConfig.DEFAULT_BROKER_PROBE_BACKOFF).build()
    };
    for (RelayConfig changed : oneChanged) {
      assertThat(changed).as(changed.toString()).isNotEqualTo(base);
    }
    assertThat(base).isNotEqualTo(null).isNotEqualTo("billing");
  }

  @Test
  void toStringWritesDurationsTheWayTheCliReadsThem() {
    assertThat(everythingChanged())
        .hasToString(
            "RelayConfig{name=billing, batchSize=500, workers=2, poll 10ms to 2s, maxAttempts=5,"
                + " backoff 1.25s to 2m x2.0 jitter 0.2, completionMode=DELETE,"
                + " shutdownTimeout=5s, ordering=PER_AGGREGATE,"
                + " brokerProbeBackoff 2s to 20s x3.0 jitter 0.0}");
  }

  @Test
  void buildRejectsEachBadValueNamingTheOption() {
    assertThatThrownBy(() -> RelayConfig.builder().batchSize(10_001).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("batchSize must be between 1 and 10000 but was 10001");
    assertThatThrownBy(() -> RelayConfig.builder().maxAttempts(1001).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be between 1 and 1000 but was 1001");
    assertThatThrownBy(() -> RelayConfig.builder().shutdownTimeout(Duration.ofSeconds(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("shutdownTimeout must");
    assertThatThrownBy(() -> RelayConfig.builder().ordering(null).build())
        .isInstanceOf(NullPointerException.class)
        .hasMessage("ordering");
  }
}
