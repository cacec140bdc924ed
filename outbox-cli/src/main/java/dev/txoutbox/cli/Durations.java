package dev.txoutbox.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations written like {@code 500ms}, {@code 30s}, {@code 30m}, {@code 12h}, {@code 7d}, or
 * in ISO-8601 ({@code PT30M}, {@code P7D}), and writes them back for people. Thread-safe.
 */
final class Durations implements ITypeConverter<Duration> {

  private static final Pattern SHORT = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");

  /** An ISO-8601 duration in text, as {@link Duration#toString()} writes them. */
  private static final Pattern ISO =
      Pattern.compile(
          "\\bP(?:[0-9]+D)?(?:T(?:-?[0-9]+H)?(?:-?[0-9]+M)?(?:-?[0-9]+(?:\\.[0-9]+)?S)?)?\\b");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * The duration {@code text} names; never negative.
   *
   * @throws TypeConversionException if {@code text} is neither form, or negative
   */
  static Duration parse(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    Matcher m = SHORT.matcher(t);
    Duration d;
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          };
    } else {
      try {
        d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw new TypeConversionException(
            "'" + text + "' is not a duration: use 500ms, 30s, 30m, 12h, 7d or ISO-8601 (PT30M)");
      }
    }
    if (d.isNegative()) {
      throw new TypeConversionException("'" + text + "' is negative");
    }
    return d;
  }

  /** {@code d} as people write it: {@code 7d}, {@code 3h 12m}, {@code 4m 5s}, {@code 1.25s}. */
  static String format(Duration d) {
    if (d.compareTo(Duration.ofMinutes(1)) < 0) {
      long ms = d.toMillis();
      return ms < 1000 ? ms + "ms" : String.format(Locale.ROOT, "%.2fs", ms / 1000.0);
    }
    StringBuilder sb = new StringBuilder();
    long days = d.toDays();
    if (days > 0) {
      sb.append(days).append("d ");
    }
    if (d.toHoursPart() > 0) {
      sb.append(d.toHoursPart()).append("h ");
    }
    if (d.toMinutesPart() > 0) {
      sb.append(d.toMinutesPart()).append("m ");
    }
    if (d.toSecondsPart() > 0 && days == 0) {
      sb.append(d.toSecondsPart()).append("s ");
    }
    return sb.toString().trim();
  }

  /**
   * {@code d} as the CLI takes it, to the millisecond: the largest unit that divides it exactly
   * ({@code 300ms}, {@code 30s}, {@code 5m}, {@code 12h}, {@code 7d}, {@code 1250ms}); ISO-8601
   * when negative or shorter than a millisecond but not zero.
   */
  static String text(Duration d) {
    if (d.isZero()) {
      return "0ms";
    }
    if (d.isNegative() || d.compareTo(Duration.ofMillis(1)) < 0) {
      return d.toString();
    }
    long ms = d.plusNanos(500_000).toMillis();
    if (ms % 1000 != 0) {
      return ms + "ms";
    }
    long s = ms / 1000;
    if (s % 60 != 0) {
      return s + "s";
    }
    long m = s / 60;
    if (m % 60 != 0) {
      return m + "m";
    }
    long h = m / 60;
    return h % 24 != 0 ? h + "h" : h / 24 + "d";
  }

  /**
   * {@code text} with every ISO-8601 duration in it ({@code PT0.3S}, as {@link Duration#toString()}
   * writes them in messages and logs) written {@linkplain #text(Duration) as the CLI takes it}.
   */
  static String inText(String text) {
    if (text == null || text.indexOf('P') < 0) {
      return text;
    }
    Matcher iso = ISO.matcher(text);
    StringBuilder out = new StringBuilder(text.length());
    while (iso.find()) {
      String shown = iso.group();
      if (shown.length() > 2) {
        try {
          shown = text(Duration.parse(shown));
        } catch (DateTimeParseException e) {
          // not a duration after all: kept as it is
        }
      }
      iso.appendReplacement(out, Matcher.quoteReplacement(shown));
    }
    iso.appendTail(out);
    return out.toString();
  }
}
