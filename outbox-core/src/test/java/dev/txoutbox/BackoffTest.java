package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class BackoffTest {

  private static final RandomGenerator MAX_JITTER =
      new RandomGenerator() {
        @Override
        public long nextLong() {
          return 0;
        }

        @Override
        public double nextDouble() {
          return 1.0;
        }
      };

  @Test
  void growsExponentiallyUpToTheCap() {
    Backoff backoff =
        Backoff.exponential(Duration.ofSeconds(1), Duration.ofSeconds(10)).withJitter(0);
    RandomGenerator random = new SplittableRandom(1);
    assertThat(backoff.delayAfter(1, random)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backoff.delayAfter(2, random)).isEqualTo(Duration.ofSeconds(2));
    assertThat(backoff.delayAfter(4, random)).isEqualTo(Duration.ofSeconds(8));
    assertThat(backoff.delayAfter(5, random)).isEqualTo(Duration.ofSeconds(10));
    assertThat(backoff.delayAfter(500, random)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void jitterTakesAtMostItsShareOffTheDelay() {
    Backoff backoff =
        Backoff.exponential(Duration.ofSeconds(10), Duration.ofSeconds(10)).withJitter(0.2);
    assertThat(backoff.delayAfter(1, MAX_JITTER)).isEqualTo(Duration.ofSeconds(8));
    RandomGenerator random = new SplittableRandom(7);
    for (int i = 0; i < 1000; i++) {
      assertThat(backoff.delayAfter(1, random))
          .isBetween(Duration.ofSeconds(8), Duration.ofSeconds(10));
    }
  }
}
