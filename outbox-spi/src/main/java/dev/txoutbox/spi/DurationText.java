package dev.txoutbox.spi;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations written for people, the one form txoutbox uses wherever it shows one: the relay's log
 * lines, {@code RelayConfig.toString()}, the CLI's messages and tables. The CLI's duration flags
 * read this form back ({@code --shutdown-timeout 1.25s}), so a value copied from a log line can be
 * given as a flag. Publishers may use it in {@link Publisher#describe()} for the same reason.
 * Thread-safe.
 */
public final class DurationText {

  /** One or more amounts with a unit, such as {@code 4m 5s} or {@code 1.25s}. */
  private static final Pattern SHORT =
      Pattern.compile("(?:\\d{1,12}(?:\\.\\d{1,9})?(?:ms|s|m|h|d)(?: +|$))+");

  private static final Pattern PART = Pattern.compile("(\\d{1,12}(?:\\.\\d{1,9})?)(ms|s|m|h|d)");

  private static final BigDecimal BILLION = BigDecimal.valueOf(1_000_000_000L);

  private DurationText() {}

  /**
   * The duration {@code text} names, written like {@code 500ms}, {@code 30s}, {@code 1.25s}, {@code
   * 4m 5s}, {@code 12h}, {@code 7d} (the form {@link #of} writes), or in ISO-8601 ({@code PT30M},
   * {@code P7D}); never negative.
   *
   * @throws IllegalArgumentException if {@code text} is neither form, or negative; the message is a
   *     predicate ("must be a duration such as … but was '…'") for the caller to prefix with the
   *     name of what it reads, such as {@code --send-timeout}
   */
  public static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Duration d;
    if (!t.isEmpty() && SHORT.matcher(t).matches()) {
      d = Duration.ZERO;
      Matcher part = PART.matcher(t);
      while (part.find()) {
        BigDecimal amount = new BigDecimal(part.group(1));
        long nanosPerUnit =
            switch (part.group(2)) {
              case "ms" -> 1_000_000L;
              case "s" -> 1_000_000_000L;
              case "m" -> 60_000_000_000L;
              case "h" -> 3_600_000_000_000L;
              default -> 86_400_000_000_000L;
            };
        BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit));
        d =
            d.plusSeconds(nanos.divideToIntegralValue(BILLION).longValueExact())
                .plusNanos(
                    nanos.remainder(BILLION).setScale(0, RoundingMode.HALF_UP).longValueExact());
      }
    } else {
      try {
        d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new IllegalArgumentException(
            "must be a duration such as 500ms, 30s, 4m 5s, 12h, 7d or ISO-8601 (PT30M) but was '"
                + text
                + "'");
      }
    }
    if (d.isNegative()) {
      throw new IllegalArgumentException("must not be negative but was '" + text + "'");
    }
    return d;
  }

  /**
   * {@code d} as people write it: under a minute in milliseconds, or in seconds with up to two
   * decimals ({@code 300ms}, {@code 1s}, {@code 1.25s}); from a minute on in whole days, hours,
   * minutes and seconds, leaving out those that are zero, and the seconds from a day on ({@code 4m
   * 5s}, {@code 2h 3m}, {@code 7d 2h}).
   *
   * @throws NullPointerException if {@code d} is null
   */
  public static String of(Duration d) {
    if (d.compareTo(Duration.ofMinutes(1)) < 0) {
      long ms = d.toMillis();
      return ms < 1000
          ? ms + "ms"
          : String.format(Locale.ROOT, "%.2f", ms / 1000.0).replaceAll("\\.?0+$", "") + "s";
    }
    long days = d.toDays();
    StringBuilder sb = new StringBuilder();
    append(sb, days, "d");
    append(sb, d.toHoursPart(), "h");
    append(sb, d.toMinutesPart(), "m");
    append(sb, days == 0 ? d.toSecondsPart() : 0, "s");
    return sb.toString();
  }

  private static void append(StringBuilder sb, long amount, String unit) {
    if (amount > 0) {
      sb.append(sb.isEmpty() ? "" : " ").append(amount).append(unit);
    }
  }
}
