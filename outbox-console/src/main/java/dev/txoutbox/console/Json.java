package dev.txoutbox.console;

import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Writes the API's answers as JSON: maps, collections, strings, numbers, booleans, instants (as
 * ISO-8601 text) and null. {@code <}, {@code >}, {@code &} and the line separators are escaped as
 * {@code \}{@code u} sequences, so a value can never end a script or an HTML context that quotes
 * it. Thread-safe: it holds no state.
 */
final class Json {

  private Json() {}

  /** {@code value} as JSON text. */
  static String write(@Nullable Object value) {
    StringBuilder out = new StringBuilder(256);
    write(out, value);
    return out.toString();
  }

  private static void write(StringBuilder out, @Nullable Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof CharSequence s) {
      string(out, s.toString());
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof Number n) {
      double d = n.doubleValue();
      out.append(Double.isFinite(d) ? String.valueOf(d) : "null");
    } else if (value instanceof Instant || value instanceof java.util.UUID) {
      string(out, value.toString());
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        string(out, String.valueOf(e.getKey()));
        out.append(':');
        write(out, e.getValue());
      }
      out.append('}');
    } else if (value instanceof Collection<?> list) {
      out.append('[');
      boolean first = true;
      for (Object item : list) {
        if (!first) {
          out.append(',');
        }
        first = false;
        write(out, item);
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException(
          "value must be a map, collection, string, number, boolean, instant or null but was a "
              + value.getClass().getName());
    }
  }

  private static void string(StringBuilder out, String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
