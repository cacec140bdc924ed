package dev.txoutbox.internal.json;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The little JSON the outbox needs without a JSON library: checking that a payload is a JSON
 * document PostgreSQL's {@code jsonb} accepts (and measuring the text PostgreSQL writes back), and
 * writing and reading flat string-to-string header objects.
 *
 * <p>The check follows PostgreSQL's own parser (15): JSON's grammar, only {@code \\u} escapes of
 * four ASCII hex digits, surrogate escapes only as a high-low pair, no {@code \\u0000}, and numbers
 * within the {@code numeric} type's range. One limit is ours: {@link #MAX_DEPTH}.
 */
public final class Json {

  /**
   * Deepest nesting of arrays and objects accepted, the same for both: 500. PostgreSQL accepts
   * several thousand levels; 500 is the default limit of Jackson 3 (Jackson 2 allows 1,000), so a
   * consumer with a default JSON parser can read every payload.
   */
  public static final int MAX_DEPTH = 500;

  /** PostgreSQL {@code numeric}: at most this many digits before the decimal point. */
  public static final int MAX_INTEGER_DIGITS = 131_072;

  /** PostgreSQL {@code numeric}: at most this many digits after the decimal point. */
  public static final int MAX_FRACTION_DIGITS = 16_383;

  /**
   * PostgreSQL reads an exponent with {@code strtol} and refuses any of this magnitude or more,
   * even on zero ({@code 0e1073741823}).
   */
  private static final long MAX_EXPONENT = Integer.MAX_VALUE / 2;

  private Json() {}

  /**
   * The sizes of a valid JSON document.
   *
   * @param textBytes UTF-8 bytes of the text as given
   * @param renderedBytes UTF-8 bytes of the text PostgreSQL writes back for it as {@code jsonb}:
   *     whitespace removed, one space after each {@code :} and {@code ,}, numbers written out in
   *     full ({@code 1e3} as {@code 1000}), strings re-escaped. Exact, except that an object with a
   *     duplicate key is counted with every copy while PostgreSQL keeps the last one only.
   */
  public record Size(long textBytes, long renderedBytes) {}

  /** The text is not a JSON document PostgreSQL's {@code jsonb} accepts. */
  public static final class InvalidJsonException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    InvalidJsonException(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this; // a validation verdict, not a bug: the stack says nothing
    }
  }

  /**
   * Checks that {@code text} is one JSON document that PostgreSQL's {@code jsonb} accepts, nested
   * at most {@link #MAX_DEPTH} deep, and measures it. A lone UTF-16 surrogate anywhere in {@code
   * text} is refused: it has no UTF-8 form.
   *
   * @return its sizes
   * @throws InvalidJsonException why not, with the character offset
   */
  public static Size check(String text) {
    Parser p = new Parser(text);
    p.skipWhitespace();
    long rendered = p.value(0, null);
    p.skipWhitespace();
    if (p.pos != text.length()) {
      throw p.error("unexpected text after the JSON value");
    }
    return new Size(text.length() + p.extraUtf8Bytes, rendered);
  }

  /**
   * Checks that {@code text} is one complete JSON value; see {@link #check(String)}.
   *
   * @return {@code null} if valid, else why not (with the character offset)
   */
  public static @Nullable String problem(String text) {
    try {
      check(text);
      return null;
    } catch (InvalidJsonException e) {
      return e.getMessage();
    }
  }

  /** Writes {@code map} as a JSON object of strings, in iteration order. */
  public static String writeStringMap(Map<String, String> map) {
    StringBuilder out = new StringBuilder(16 + map.size() * 32).append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : map.entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      writeString(out, e.getKey());
      out.append(':');
      writeString(out, e.getValue());
    }
    return out.append('}').toString();
  }

  /**
   * Reads a JSON object into a map of strings. A value that is not a string (written by someone
   * else than txoutbox) is kept as its JSON text.
   *
   * @throws IllegalArgumentException if {@code text} is not a JSON object
   */
  public static Map<String, String> readStringMap(String text) {
    Map<String, String> map = new LinkedHashMap<>();
    try {
      Parser p = new Parser(text);
      p.skipWhitespace();
      if (p.peek() != '{') {
        throw p.error("expected a JSON object");
      }
      p.value(0, map);
    } catch (InvalidJsonException e) {
      throw new IllegalArgumentException(
          "headers must be a JSON object of strings but were not: " + e.getMessage());
    }
    return Collections.unmodifiableMap(map);
  }

  private static void writeString(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            out.append("\\u00").append(Character.forDigit(c >> 4, 16));
            out.append(Character.forDigit(c & 0xF, 16));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /** UTF-8 bytes of code point {@code cp} as PostgreSQL's jsonb output writes it in a string. */
  private static int renderedLength(int cp) {
    return switch (cp) {
      case '"', '\\', '\b', '\f', '\n', '\r', '\t' -> 2;
      default -> {
        if (cp < 0x20) {
          yield 6; // a six-character escape, backslash u 00XX
        } else if (cp < 0x80) {
          yield 1;
        } else if (cp < 0x800) {
          yield 2;
        } else if (cp < 0x10000) {
          yield 3;
        } else {
          yield 4;
        }
      }
    };
  }

  private static final class Parser {
    private final String s;
    private int pos;

    /** UTF-8 bytes of the text beyond one per char (non-ASCII characters occur in strings only). */
    private long extraUtf8Bytes;

    Parser(String s) {
      this.s = s;
    }

    char peek() {
      return pos < s.length() ? s.charAt(pos) : '\0';
    }

    InvalidJsonException error(String what) {
      return new InvalidJsonException(what + " at offset " + pos);
    }

    void skipWhitespace() {
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          pos++;
        } else {
          return;
        }
      }
    }

    /**
     * Parses one value; for a top-level object, fills {@code into} with its string members.
     *
     * @param depth arrays and objects around this value
     * @return the UTF-8 bytes PostgreSQL renders for it
     */
    long value(int depth, @Nullable Map<String, String> into) {
      if (pos >= s.length()) {
        throw error("unexpected end of input");
      }
      char c = s.charAt(pos);
      return switch (c) {
        case '{' -> object(depth + 1, into);
        case '[' -> array(depth + 1);
        case '"' -> string(null);
        case 't' -> literal("true");
        case 'f' -> literal("false");
        case 'n' -> literal("null");
        default -> {
          if (c == '-' || (c >= '0' && c <= '9')) {
            yield number();
          }
          throw error("unexpected " + describe(c));
        }
      };
    }

    private String describe(char c) {
      if (Character.isSurrogate(c)) {
        return "unpaired UTF-16 surrogate U+" + Integer.toHexString(c).toUpperCase(Locale.ROOT);
      }
      return c < 0x20 || c > 0x7e
          ? "character U+" + String.format("%04X", (int) c)
          : "character '" + c + "'";
    }

    private void enter(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("arrays and objects nested deeper than " + MAX_DEPTH + " levels");
      }
      pos++;
      skipWhitespace();
    }

    private long object(int depth, @Nullable Map<String, String> into) {
      enter(depth);
      long rendered = 2; // {}
      if (peek() == '}') {
        pos++;
        return rendered;
      }
      while (true) {
        skipWhitespace();
        if (peek() != '"') {
          throw error("expected a member name");
        }
        StringBuilder name = into == null ? null : new StringBuilder();
        rendered += string(name) + 2; // ": "
        skipWhitespace();
        if (peek() != ':') {
          throw error("expected ':'");
        }
        pos++;
        skipWhitespace();
        int start = pos;
        if (into == null || name == null) { // name is read whenever into is given
          rendered += value(depth, null);
        } else if (peek() == '"') {
          StringBuilder value = new StringBuilder();
          rendered += string(value);
          into.put(name.toString(), value.toString());
        } else {
          rendered += value(depth, null);
          into.put(name.toString(), s.substring(start, pos));
        }
        skipWhitespace();
        char c = peek();
        if (c == '}') {
          pos++;
          return rendered;
        }
        if (c != ',') {
          throw error("expected ',' or '}'");
        }
        pos++;
        rendered += 2; // ", "
      }
    }

    private long array(int depth) {
      enter(depth);
      long rendered = 2; // []
      if (peek() == ']') {
        pos++;
        return rendered;
      }
      while (true) {
        skipWhitespace();
        rendered += value(depth, null);
        skipWhitespace();
        char c = peek();
        if (c == ']') {
          pos++;
          return rendered;
        }
        if (c != ',') {
          throw error("expected ',' or ']'");
        }
        pos++;
        rendered += 2; // ", "
      }
    }

    /**
     * Parses a string; appends its decoded text to {@code out} when not null.
     *
     * @return the UTF-8 bytes PostgreSQL renders for it, quotes included
     */
    private long string(@Nullable StringBuilder out) {
      pos++; // opening quote
      long rendered = 2;
      int high = -1; // a \\u high surrogate waiting for its low half
      while (true) {
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos);
        if (c == '\\') {
          pos++;
          char e = peek();
          if (e == 'u') {
            int code = hex4();
            if (code >= 0xD800 && code <= 0xDBFF) {
              if (high >= 0) {
                throw error("a \\u high surrogate must not follow a high surrogate");
              }
              high = code;
              continue;
            }
            if (code >= 0xDC00 && code <= 0xDFFF) {
              if (high < 0) {
                throw error("a \\u low surrogate must follow a high surrogate");
              }
              rendered += 4;
              if (out != null) {
                out.append((char) high).append((char) code);
              }
              high = -1;
              continue;
            }
            requireNoPendingHigh(high);
            if (code == 0) {
              throw error("\\u0000 cannot be stored in PostgreSQL jsonb");
            }
            rendered += renderedLength(code);
            if (out != null) {
              out.append((char) code);
            }
            continue;
          }
          requireNoPendingHigh(high);
          char decoded =
              switch (e) {
                case '"', '\\', '/' -> e;
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                default -> throw error("bad escape '\\" + e + "'");
              };
          rendered += renderedLength(decoded);
          if (out != null) {
            out.append(decoded);
          }
          pos++;
          continue;
        }
        requireNoPendingHigh(high);
        if (c == '"') {
          pos++;
          return rendered;
        }
        if (c < 0x80) {
          if (c < 0x20) {
            throw error("control character U+" + String.format("%04X", (int) c) + " in a string");
          }
          rendered++;
        } else if (c < 0x800) {
          rendered += 2;
          extraUtf8Bytes += 1;
        } else if (Character.isHighSurrogate(c)
            && pos + 1 < s.length()
            && Character.isLowSurrogate(s.charAt(pos + 1))) {
          rendered += 4;
          extraUtf8Bytes += 2; // 4 bytes for 2 chars
          if (out != null) {
            out.append(c);
          }
          c = s.charAt(++pos);
        } else if (Character.isSurrogate(c)) {
          throw error(describe(c));
        } else {
          rendered += 3;
          extraUtf8Bytes += 2;
        }
        if (out != null) {
          out.append(c);
        }
        pos++;
      }
    }

    private void requireNoPendingHigh(int high) {
      if (high >= 0) {
        throw error("a \\u high surrogate must be followed by a \\u low surrogate");
      }
    }

    /** Reads the four hex digits after {@code \\u} at {@code pos}; leaves pos after them. */
    private int hex4() {
      int code = 0;
      for (int i = 1; i <= 4; i++) {
        char h = pos + i < s.length() ? s.charAt(pos + i) : '\0';
        int digit;
        if (h >= '0' && h <= '9') {
          digit = h - '0';
        } else if (h >= 'a' && h <= 'f') {
          digit = h - 'a' + 10;
        } else if (h >= 'A' && h <= 'F') {
          digit = h - 'A' + 10;
        } else {
          throw error("\\u must be followed by four hexadecimal digits");
        }
        code = code * 16 + digit;
      }
      pos += 5;
      return code;
    }

    private long literal(String word) {
      if (!s.startsWith(word, pos)) {
        throw error("unexpected literal");
      }
      pos += word.length();
      return word.length();
    }

    /**
     * Parses a number as PostgreSQL's {@code numeric} does and measures its output: an optional
     * minus (not for zero), the integer digits (or {@code 0}), then the point and as many digits as
     * its scale (digits after the point in the text minus the exponent, at least 0).
     */
    private long number() {
      int start = pos;
      boolean negative = peek() == '-';
      if (negative) {
        pos++;
      }
      int intStart = pos;
      if (peek() == '0') {
        pos++;
      } else if (peek() >= '1' && peek() <= '9') {
        digits();
      } else {
        throw error("bad number");
      }
      int intEnd = pos;
      int fracStart = pos;
      if (peek() == '.') {
        pos++;
        fracStart = pos;
        if (!(peek() >= '0' && peek() <= '9')) {
          throw error("bad number");
        }
        digits();
      }
      int fracEnd = pos;
      long exponent = 0;
      if (peek() == 'e' || peek() == 'E') {
        pos++;
        boolean negativeExponent = peek() == '-';
        if (peek() == '+' || peek() == '-') {
          pos++;
        }
        if (!(peek() >= '0' && peek() <= '9')) {
          throw error("bad number");
        }
        while (peek() >= '0' && peek() <= '9') {
          if (exponent < MAX_EXPONENT) {
            exponent = exponent * 10 + (s.charAt(pos) - '0');
          }
          pos++;
        }
        if (exponent >= MAX_EXPONENT) {
          throw outOfRange(start);
        }
        if (negativeExponent) {
          exponent = -exponent;
        }
      }
      long scale = Math.max(0, (fracEnd - fracStart) - exponent);
      if (scale > MAX_FRACTION_DIGITS) {
        throw outOfRange(start);
      }
      long rendered = scale > 0 ? 1 + scale : 0; // point and fraction digits
      // The decimal exponent of the first non-zero digit: integer digits never start with 0.
      long leading;
      if (s.charAt(intStart) != '0') {
        leading = (intEnd - intStart - 1) + exponent;
      } else {
        int i = fracStart;
        while (i < fracEnd && s.charAt(i) == '0') {
          i++;
        }
        if (i == fracEnd) {
          return rendered + 1; // zero: "0", never negative
        }
        leading = -(i - fracStart + 1) + exponent;
      }
      if (leading >= MAX_INTEGER_DIGITS) {
        throw outOfRange(start);
      }
      return rendered + (negative ? 1 : 0) + (leading >= 0 ? leading + 1 : 1);
    }

    private InvalidJsonException outOfRange(int start) {
      return new InvalidJsonException(
          "number at offset "
              + start
              + " is outside PostgreSQL's numeric range (at most "
              + MAX_INTEGER_DIGITS
              + " digits before the decimal point and "
              + MAX_FRACTION_DIGITS
              + " after)");
    }

    private void digits() {
      while (peek() >= '0' && peek() <= '9') {
        pos++;
      }
    }
  }
}
