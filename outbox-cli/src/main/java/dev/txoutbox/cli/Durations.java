package dev.txoutbox.cli;

import dev.txoutbox.spi.DurationText;
import java.time.Duration;
import java.time.format.DateTimeParseException;
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

  /** An ISO-8601 duration in text, as {@link Duration#toString()} writes them. */
  private static final Pattern ISO =
      Pattern.compile(
          "\\bP(?:[0-9]+D)?(?:T(?:-?[0-9]+H)?(?:-?[0-9]+M)?(?:-?[0-9]+(?:\\.[0-9]+)?S)?)?\\b");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  /**
   * The duration {@code text} names, as {@link DurationText#parse} reads it; never negative.
   *
   * @throws TypeConversionException if {@code text} is neither form, or negative
   */
  static Duration parse(String text) {
    try {
      return DurationText.parse(text);
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
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
}
