package dev.txoutbox.wal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the {@code headers} column as the replication stream carries it: PostgreSQL's {@code jsonb}
 * text output of a flat object of strings, such as {@code {"k": "v", "traceparent": "00-…"}}. The
 * writer stores nothing else there. outbox-core's JSON reader is internal to it, hence this small
 * strict one. Stateless and thread-safe.
 */
final class HeadersText {

  private HeadersText() {}

  /**
   * The headers in {@code json}.
   *
   * @throws IllegalArgumentException if {@code json} is not an object whose values are all strings
   */
  static Map<String, String> read(String json) {
    if (json.equals("{}")) {
      return Map.of();
    }
    Map<String, String> out = new LinkedHashMap<>();
    int[] at = {skipSpace(json, 0)};
    expect(json, at, '{');
    while (true) {
      String key = string(json, at);
      expect(json, at, ':');
      String value = string(json, at);
      out.put(key, value);
      at[0] = skipSpace(json, at[0]);
      if (at[0] < json.length() && json.charAt(at[0]) == ',') {
        at[0]++;
        continue;
      }
      expect(json, at, '}');
      if (skipSpace(json, at[0]) != json.length()) {
        throw problem(json, at[0], "text after the object");
      }
      return out;
    }
  }

  private static String string(String json, int[] at) {
    expect(json, at, '"');
    StringBuilder sb = new StringBuilder();
    int i = at[0];
    while (true) {
      if (i >= json.length()) {
        throw problem(json, i, "an unterminated string");
      }
      char c = json.charAt(i++);
      if (c == '"') {
        at[0] = i;
        return sb.toString();
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (i >= json.length()) {
        throw problem(json, i, "an unterminated escape");
      }
      char e = json.charAt(i++);
      switch (e) {
        case '"', '\\', '/' -> sb.append(e);
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'n' -> sb.append('\n');
        case 'r' -> sb.append('\r');
        case 't' -> sb.append('\t');
        case 'u' -> {
          if (i + 4 > json.length()) {
            throw problem(json, i, "a short \\u escape");
          }
          try {
            sb.append((char) Integer.parseInt(json.substring(i, i + 4), 16));
          } catch (NumberFormatException ex) {
            throw problem(json, i, "a \\u escape that is not hexadecimal");
          }
          i += 4;
        }
        default -> throw problem(json, i - 1, "an unknown escape \\" + e);
      }
    }
  }

  private static void expect(String json, int[] at, char c) {
    int i = skipSpace(json, at[0]);
    if (i >= json.length() || json.charAt(i) != c) {
      throw problem(json, i, "no '" + c + "' where one must be (only string values are read)");
    }
    at[0] = i + 1;
  }

  private static int skipSpace(String json, int i) {
    while (i < json.length() && json.charAt(i) == ' ') {
      i++;
    }
    return i;
  }

  private static IllegalArgumentException problem(String json, int at, String what) {
    return new IllegalArgumentException(
        "headers must be a JSON object of strings but have " + what + " at offset " + at);
  }
}
