package dev.txoutbox;

import dev.txoutbox.RelayOption.Rule;
import dev.txoutbox.RelayOption.Spelling;
import java.time.Duration;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The rules of {@link RelayOption}'s factories. Stateless. */
final class OptionRules {

  private OptionRules() {}

  /** A whole number from {@code min} to {@code max}. */
  static Rule<Integer> between(int min, int max) {
    return new Rule<>() {
      @Override
      public @Nullable String violation(Integer v, @Nullable Integer other, Spelling s) {
        return v >= min && v <= max ? null : "must be between " + min + " and " + max;
      }

      @Override
      public String describe(Spelling s) {
        return min + " to " + max;
      }
    };
  }

  /** A finite number from {@code min} up to {@code max} (none when infinite). */
  static Rule<Double> between(double min, double max) {
    boolean bounded = Double.isFinite(max);
    return new Rule<>() {
      @Override
      public @Nullable String violation(Double v, @Nullable Double other, Spelling s) {
        // Written so that NaN fails too.
        boolean ok = v >= min && (bounded ? v <= max : !Double.isInfinite(v));
        return ok
            ? null
            : bounded
                ? "must be between " + RelayOption.plain(min) + " and " + RelayOption.plain(max)
                : "must be at least " + RelayOption.plain(min);
      }

      @Override
      public String describe(Spelling s) {
        return bounded
            ? RelayOption.plain(min) + " to " + RelayOption.plain(max)
            : "at least " + RelayOption.plain(min);
      }
    };
  }

  /** A positive duration; with {@code atLeast}, at least that option's value instead. */
  static Rule<Duration> positiveOrAtLeast(@Nullable RelayOption<Duration> atLeast) {
    return new Rule<>() {
      @Override
      public @Nullable String violation(Duration v, @Nullable Duration other, Spelling s) {
        if (atLeast != null) {
          return other == null || v.compareTo(other) >= 0
              ? null
              : "must be at least " + s.name(atLeast) + " (" + s.value(other) + ")";
        }
        return v.isNegative() || v.isZero() ? "must be positive" : null;
      }

      @Override
      public String describe(Spelling s) {
        return atLeast == null ? "positive" : "at least " + s.name(atLeast);
      }
    };
  }

  /** A duration of zero or more. */
  static Rule<Duration> notNegative() {
    return new Rule<>() {
      @Override
      public @Nullable String violation(Duration v, @Nullable Duration other, Spelling s) {
        return v.isNegative() ? "must not be negative" : null;
      }

      @Override
      public String describe(Spelling s) {
        return "0 or more";
      }
    };
  }

  /** Text matching {@code pattern}, which {@code rule} says in words. */
  static Rule<String> matching(Pattern pattern, String rule) {
    return new Rule<>() {
      @Override
      public @Nullable String violation(String v, @Nullable String other, Spelling s) {
        return pattern.matcher(v).matches() ? null : "must be " + rule;
      }

      @Override
      public String describe(Spelling s) {
        return rule;
      }
    };
  }

  /** Any value. */
  static <T> Rule<T> none() {
    return new Rule<>() {
      @Override
      public @Nullable String violation(T value, @Nullable T other, Spelling s) {
        return null;
      }

      @Override
      public String describe(Spelling s) {
        return "";
      }
    };
  }
}
