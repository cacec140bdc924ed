package dev.txoutbox.spi;

import java.time.Duration;
import java.util.Locale;

/**
 * Durations written for people, the one form txoutbox uses wherever it shows one: the relay's log
 * lines, {@code RelayConfig.toString()}, the CLI's messages and tables. The CLI's duration flags
 * read this form back ({@code --shutdown-timeout 1.25s}), so a value copied from a log line can be
 * given as a flag. Publishers may use it in {@link Publisher#describe()} for the same reason.
 * Thread-safe.
 */
public final class DurationText {

  private DurationText() {}

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
