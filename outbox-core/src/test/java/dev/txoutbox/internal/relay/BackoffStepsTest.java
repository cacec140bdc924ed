package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffStepsTest {

  /** A source of jitter that always draws {@code value} from [0, 1). */
  private static RandomGenerator always(double value) {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        throw new UnsupportedOperationException();
      }

      @Override
      public double nextDouble() {
        return value;
      }
    };
  }

  private static List<Duration> take(BackoffSteps steps, int n) {
    List<Duration> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(steps.next());
    }
    return out;
  }

  @Test
  void startsAtTheInitialDelayDoublesToTheCapAndStartsAgainAfterAReset() {
    BackoffSteps steps =
        new BackoffSteps(
            new Backoff(Duration.ofMillis(100), Duration.ofMillis(700), 2.0, 0.0), always(0.9));

    assertThat(take(steps, 5))
        .extracting(Duration::toMillis)
        .containsExactly(100L, 200L, 400L, 700L, 700L);
    steps.reset();
    assertThat(steps.steps()).isZero();
    assertThat(steps.next()).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void jitterTakesUpToItsShareOffEachDelay() {
    Backoff reconnect = NotificationListener.RECONNECT_BACKOFF;
    assertThat(reconnect.jitter()).isEqualTo(Backoff.DEFAULT_JITTER);

    assertThat(take(new BackoffSteps(reconnect, always(0.0)), 9))
        .extracting(Duration::toMillis)
        .containsExactly(100L, 200L, 400L, 800L, 1600L, 3200L, 6400L, 10_000L, 10_000L);
    assertThat(take(new BackoffSteps(reconnect, always(0.5)), 3))
        .extracting(Duration::toMillis)
        .containsExactly(90L, 180L, 360L);
  }

  @Test
  void countsAtMostMaxStepsSoALongOutageNeverOverflows() {
    BackoffSteps steps =
        new BackoffSteps(
            Backoff.exponential(Duration.ofMillis(1), Duration.ofSeconds(1)), always(0));
    for (int i = 0; i < BackoffSteps.MAX_STEPS + 10; i++) {
      steps.next();
    }
    assertThat(steps.steps()).isEqualTo(BackoffSteps.MAX_STEPS);
    assertThat(steps.next()).isEqualTo(Duration.ofSeconds(1));
  }
}
