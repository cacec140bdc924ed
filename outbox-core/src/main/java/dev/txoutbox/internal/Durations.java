package dev.txoutbox.internal;

import java.time.Duration;
import java.util.Locale;

/** Durations for log lines, written the way the CLI reads them ({@code 300ms}, {@code 1.25s}). */
public final class Durations {

  private Durations() {}

  /**
   * {@code d} as people write it: {@code 300ms}, {@code 1s}, {@code 1.25s}, {@code 4m 5s}, {@code
   * 2h 3m}.
   */
  public static String format(Duration d) {
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
