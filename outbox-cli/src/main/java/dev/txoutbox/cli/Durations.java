package dev.txoutbox.cli;

import dev.txoutbox.spi.DurationText;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations written like {@code 500ms}, {@code 30s}, {@code 1.25s}, {@code 4m 5s}, {@code
 * 12h}, {@code 7d}, or in ISO-8601 ({@code PT30M}, {@code P7D}), and writes them back for people in
 * a form it reads: {@link DurationText}'s, the form of the relay's own log lines. Thread-safe.
 */
final class Durations implements ITypeConverter<Duration> {

  /** One or more amounts with a unit, such as {@code 4m 5s} or {@code 1.25s}. */
  private static final Pattern SHORT =
      Pattern.compile("(?:\\d{1,12}(?:\\.\\d{1,9})?(?:ms|s|m|h|d)(?: +|$))+");

  private static final Pattern PART = Pattern.compile("(\\d{1,12}(?:\\.\\d{1,9})?)(ms|s|m|h|d)");

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
        throw new TypeConversionException(
            "must be a duration such as 500ms, 30s, 4m 5s, 12h, 7d or ISO-8601 (PT30M) but was '"
                + text
                + "'");
      }
    }
    if (d.isNegative()) {
      throw new TypeConversionException("must not be negative but was '" + text + "'");
    }
    return d;
  }

  /**
   * {@code d} as people write it, and as {@link #parse} reads it back: {@code 7d}, {@code 1.25s}.
   */
  static String format(Duration d) {
    return DurationText.of(d);
  }

  /**
   * {@code text} with every ISO-8601 duration in it ({@code PT0.3S}, as {@link Duration#toString()}
   * writes them in messages and logs) {@linkplain #format(Duration) written for people}.
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
          shown = format(Duration.parse(shown));
        } catch (DateTimeParseException e) {
          // not a duration after all: kept as it is
        }
      }
      iso.appendReplacement(out, Matcher.quoteReplacement(shown));
    }
    iso.appendTail(out);
    return out.toString();
  }

  private static final BigDecimal BILLION = BigDecimal.valueOf(1_000_000_000L);
}
