package dev.txoutbox.spi;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The rule for a batch cut short, written once: when a plugin stops sending part-way (the broker
 * went away, the deadline passed), every event it has no answer for gets the same outcome, and the
 * answers it has stand. Thread-safe (stateless).
 */
public final class BatchResults {

  private BatchResults() {}

  /**
   * {@code results} with every {@code null} slot set to {@code outcome}, as the list {@link
   * Publisher#publish} returns.
   *
   * @throws NullPointerException if {@code results} or {@code outcome} is null
   */
  public static List<PublishResult> fillUnset(
      @Nullable PublishResult[] results, PublishResult outcome) {
    Objects.requireNonNull(outcome, "outcome");
    PublishResult[] filled = Arrays.copyOf(results, results.length);
    for (int i = 0; i < filled.length; i++) {
      if (filled[i] == null) {
        filled[i] = outcome;
      }
    }
    return List.of(filled);
  }

  /** How many slots of {@code results} are still {@code null}. */
  public static int unset(@Nullable PublishResult[] results) {
    int n = 0;
    for (@Nullable PublishResult r : results) {
      if (r == null) {
        n++;
      }
    }
    return n;
  }
}
