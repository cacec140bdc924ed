package dev.txoutbox.console;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The parameters of a query string or a form body, read with limits: every value the console takes
 * from a request passes here, and a value out of bounds is refused with a message naming the
 * parameter and the limit ({@link Refusal#badRequest}). Immutable.
 */
final class Params {

  /** Longest query string or form body read: 8,192 characters. */
  static final int MAX_LENGTH = 8_192;

  /** Longest text filter (types, ids): 255 characters, the width of the text columns. */
  static final int MAX_TEXT = 255;

  private final Map<String, List<String>> values;

  private Params(Map<String, List<String>> values) {
    this.values = values;
  }

  /**
   * The parameters of {@code encoded} ({@code a=1&b=2}), each name one of {@code known}.
   *
   * @throws Refusal 400 if the text is too long, badly encoded, or names an unknown parameter
   */
  static Params parse(String encoded, Set<String> known) {
    if (encoded.length() > MAX_LENGTH) {
      throw Refusal.badRequest(
          "the parameters must be at most "
              + MAX_LENGTH
              + " characters but were "
              + encoded.length());
    }
    Map<String, List<String>> values = new LinkedHashMap<>();
    for (String pair : encoded.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (!known.contains(name)) {
        throw Refusal.badRequest(
            "unknown parameter " + Text.quoted(name) + "; the known ones are " + known);
      }
      values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }
    return new Params(values);
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw Refusal.badRequest("the parameters must be percent-encoded but held " + Text.quoted(s));
    }
  }

  /** The one value of {@code name}, or null if it is absent or blank. */
  @Nullable String text(String name, int maxLength) {
    List<String> all = values.get(name);
    if (all == null) {
      return null;
    }
    if (all.size() > 1) {
      throw Refusal.badRequest(name + " must be given at most once but was given " + all.size());
    }
    String value = all.get(0);
    if (value.length() > maxLength) {
      throw Refusal.badRequest(
          name + " must be at most " + maxLength + " characters but was " + value.length());
    }
    return value.isBlank() ? null : value;
  }

  /** Every value of {@code name}, at most {@code max} of them. */
  List<String> all(String name, int max) {
    List<String> all = values.getOrDefault(name, List.of());
    if (all.size() > max) {
      throw Refusal.badRequest(
          name + " must be given at most " + max + " times but was given " + all.size());
    }
    return all;
  }

  /** The UUID in {@code name}, or null. */
  @Nullable UUID uuid(String name) {
    String value = text(name, 36);
    return value == null ? null : uuid(name, value);
  }

  static UUID uuid(String name, String value) {
    try {
      if (value.length() == 36) {
        return UUID.fromString(value);
      }
    } catch (IllegalArgumentException e) {
      // refused below
    }
    throw Refusal.badRequest(
        name + " must be an event id (a UUID such as 0190f3c2-…) but was " + Text.quoted(value));
  }

  /** The whole number in {@code name} between {@code min} and {@code max}, or {@code dflt}. */
  long number(String name, long min, long max, long dflt) {
    String value = text(name, 20);
    if (value == null) {
      return dflt;
    }
    long n;
    try {
      n = Long.parseLong(value.strip());
    } catch (NumberFormatException e) {
      throw Refusal.badRequest(
          name
              + " must be a whole number between "
              + min
              + " and "
              + max
              + " but was "
              + Text.quoted(value));
    }
    if (n < min || n > max) {
      throw Refusal.badRequest(name + " must be between " + min + " and " + max + " but was " + n);
    }
    return n;
  }

  /**
   * The time in {@code name}: ISO-8601 with a zone ({@code 2026-12-06T03:00:00Z}) or a local date
   * and time read as UTC ({@code 2026-12-06T03:00}, what a browser's date-time field sends).
   */
  @Nullable Instant instant(String name) {
    String value = text(name, 40);
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      try {
        return LocalDateTime.parse(value).toInstant(ZoneOffset.UTC);
      } catch (DateTimeParseException e2) {
        throw Refusal.badRequest(
            name
                + " must be a time such as 2026-12-06T03:00:00Z (or 2026-12-06T03:00, read as UTC)"
                + " but was "
                + Text.quoted(value));
      }
    }
  }
}
