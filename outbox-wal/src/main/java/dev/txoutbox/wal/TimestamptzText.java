package dev.txoutbox.wal;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import org.jspecify.annotations.Nullable;

/**
 * Reads PostgreSQL's text output of a {@code timestamptz} with {@code DateStyle=ISO}, as {@code
 * pgoutput} sends it: {@code 2026-01-02 03:04:05.123456+01}, the offset as {@code ±HH}, {@code
 * ±HH:MM} or {@code ±HH:MM:SS}. The usual four-digit-year form is read by hand, since {@link
 * OffsetDateTime#parse} took a third of the WAL relay's reading time; anything else goes to the
 * formatter, whose errors are the ones callers see.
 */
final class TimestamptzText {

  private TimestamptzText() {}

  /** The general form, for what the fast path does not read. */
  static final DateTimeFormatter FORMAT =
      new DateTimeFormatterBuilder()
          .appendPattern("uuuu-MM-dd HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .appendOffset("+HH:mm:ss", "Z")
          .toFormatter();

  private static final int[] NANOS_PER_DIGIT = {
    0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10, 1
  };

  /**
   * The instant {@code text} stands for.
   *
   * @throws java.time.format.DateTimeParseException if it is not such a timestamp
   */
  static Instant parse(String text) {
    Instant fast = fast(text);
    return fast != null ? fast : OffsetDateTime.parse(text, FORMAT).toInstant();
  }

  /** The instant of the usual form, or null for the formatter to read (or refuse). */
  static @Nullable Instant fast(String s) {
    int n = s.length();
    if (n < 22
        || s.charAt(4) != '-'
        || s.charAt(7) != '-'
        || s.charAt(10) != ' '
        || s.charAt(13) != ':'
        || s.charAt(16) != ':') {
      return null;
    }
    int year = digits(s, 0, 4);
    int month = digits(s, 5, 2);
    int day = digits(s, 8, 2);
    int hour = digits(s, 11, 2);
    int minute = digits(s, 14, 2);
    int second = digits(s, 17, 2);
    if ((year | month | day | hour | minute | second) < 0
        || hour > 23
        || minute > 59
        || second > 59) {
      return null;
    }
    int i = 19;
    int nanos = 0;
    if (s.charAt(i) == '.') {
      int start = ++i;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
      }
      int length = i - start;
      if (length == 0 || length > 9) {
        return null;
      }
      nanos = digits(s, start, length) * NANOS_PER_DIGIT[length];
    }
    if (i >= n || (s.charAt(i) != '+' && s.charAt(i) != '-')) {
      return null;
    }
    int sign = s.charAt(i) == '+' ? 1 : -1;
    int offset = offsetSeconds(s, i + 1);
    if (offset < 0) {
      return null;
    }
    long epochDay;
    try {
      epochDay = LocalDate.of(year, month, day).toEpochDay();
    } catch (DateTimeException e) {
      return null;
    }
    long seconds = epochDay * 86_400L + hour * 3_600L + minute * 60L + second - sign * offset;
    return Instant.ofEpochSecond(seconds, nanos);
  }

  /** {@code HH}, {@code HH:MM} or {@code HH:MM:SS} from {@code at} to the end, or -1. */
  private static int offsetSeconds(String s, int at) {
    int rest = s.length() - at;
    int h = digits(s, at, 2);
    int m = 0;
    int sec = 0;
    if (rest == 5 || rest == 8) {
      m = s.charAt(at + 2) == ':' ? digits(s, at + 3, 2) : -1;
    }
    if (rest == 8) {
      sec = s.charAt(at + 5) == ':' ? digits(s, at + 6, 2) : -1;
    }
    if ((rest != 2 && rest != 5 && rest != 8) || (h | m | sec) < 0 || m > 59 || sec > 59) {
      return -1;
    }
    int total = h * 3_600 + m * 60 + sec;
    return total > 18 * 3_600 ? -1 : total;
  }

  /** The {@code length} ASCII digits at {@code at} as a number, or -1. */
  private static int digits(String s, int at, int length) {
    if (at + length > s.length()) {
      return -1;
    }
    int value = 0;
    for (int i = at; i < at + length; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
