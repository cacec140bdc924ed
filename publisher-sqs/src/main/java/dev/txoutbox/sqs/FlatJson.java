package dev.txoutbox.sqs;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes and reads a flat JSON object of string values, the form of the {@link
 * SqsHeaders#OVERFLOW_ATTRIBUTE} attribute. Every character outside printable ASCII is escaped as
 * {@code \}{@code uXXXX}, so the text is always accepted by SQS whatever the headers contain.
 * Stateless and thread-safe.
 */
final class FlatJson {

  private FlatJson() {}

  /** {@code {"name":"value",...}} in the map's iteration order. */
  static String write(Map<String, String> values) {
    StringBuilder json = new StringBuilder(2 + values.size() * 32).append('{');
    for (Map.Entry<String, String> e : values.entrySet()) {
      if (json.length() > 1) {
        json.append(',');
      }
      quote(json, e.getKey());
      json.append(':');
      quote(json, e.getValue());
    }
    return json.append('}').toString();
  }

  private static void quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20 || c > 0x7e) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }

  /**
   * Parses a flat JSON object whose values are all strings.
   *
   * @throws IllegalArgumentException if {@code json} is not such an object
   */
  static Map<String, String> read(String json) {
    Parser parser = new Parser(json);
    Map<String, String> values = parser.object();
    parser.end();
    return values;
  }

  private static final class Parser {
    private final String text;
    private int pos;

    Parser(String text) {
      this.text = text;
    }

    Map<String, String> object() {
      Map<String, String> values = new LinkedHashMap<>();
      expect('{');
      if (peek() == '}') {
        pos++;
        return values;
      }
      do {
        String name = string();
        expect(':');
        values.put(name, string());
      } while (tryConsume(','));
      expect('}');
      return values;
    }

    void end() {
      skipWhitespace();
      if (pos != text.length()) {
        throw error("trailing characters");
      }
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        if (pos >= text.length()) {
          throw error("unterminated string");
        }
        char c = text.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (pos >= text.length()) {
          throw error("unterminated escape");
        }
        char escaped = text.charAt(pos++);
        switch (escaped) {
          case '"', '\\', '/' -> out.append(escaped);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (pos + 4 > text.length()) {
              throw error("short unicode escape");
            }
            try {
              out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
            } catch (NumberFormatException e) {
              throw error("bad unicode escape");
            }
            pos += 4;
          }
          default -> throw error("bad escape");
        }
      }
    }

    private char peek() {
      skipWhitespace();
      if (pos >= text.length()) {
        throw error("unexpected end");
      }
      return text.charAt(pos);
    }

    private boolean tryConsume(char c) {
      if (peek() == c) {
        pos++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!tryConsume(c)) {
        throw error("expected '" + c + "'");
      }
    }

    private void skipWhitespace() {
      while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
        pos++;
      }
    }

    private IllegalArgumentException error(String what) {
      return new IllegalArgumentException(
          "not a flat JSON object of strings: " + what + " at offset " + pos);
    }
  }
}
