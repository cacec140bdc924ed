package dev.txoutbox.internal.json;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The little JSON the outbox needs without a JSON library: checking that a payload is a JSON
 * document PostgreSQL's {@code jsonb} accepts, and writing and reading flat string-to-string header
 * objects.
 */
public final class Json {

  /** Nesting deeper than this is refused, so a hostile payload cannot exhaust the stack. */
  public static final int MAX_DEPTH = 500;

  private Json() {}

  /**
   * Checks that {@code text} is one complete JSON value.
   *
   * @return {@code null} if valid, else why not (with the character offset)
   */
  public static String problem(String text) {
    try {
      Parser p = new Parser(text);
      p.skipWhitespace();
      p.value(0, null);
      p.skipWhitespace();
      if (p.pos != text.length()) {
        throw p.error("unexpected text after the JSON value");
      }
      return null;
    } catch (JsonSyntaxException e) {
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
    } catch (JsonSyntaxException e) {
      throw new IllegalArgumentException(
          "headers are not a JSON object of strings: " + e.getMessage());
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
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static final class JsonSyntaxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    JsonSyntaxException(String message) {
      super(message, null, false, false);
    }
  }

  private static final class Parser {
    private final String s;
    private int pos;

    Parser(String s) {
      this.s = s;
    }

    char peek() {
      return pos < s.length() ? s.charAt(pos) : '\0';
    }

    JsonSyntaxException error(String what) {
      return new JsonSyntaxException(what + " at offset " + pos);
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

    /** Parses one value; for a top-level object, fills {@code into} with its string members. */
    void value(int depth, Map<String, String> into) {
      if (depth > MAX_DEPTH) {
        throw error("nesting deeper than " + MAX_DEPTH + " levels");
      }
      if (pos >= s.length()) {
        throw error("unexpected end of input");
      }
      char c = s.charAt(pos);
      switch (c) {
        case '{' -> object(depth, into);
        case '[' -> array(depth);
        case '"' -> string();
        case 't' -> literal("true");
        case 'f' -> literal("false");
        case 'n' -> literal("null");
        default -> {
          if (c == '-' || (c >= '0' && c <= '9')) {
            number();
          } else {
            throw error("unexpected character '" + c + "'");
          }
        }
      }
    }

    private void object(int depth, Map<String, String> into) {
      pos++;
      skipWhitespace();
      if (peek() == '}') {
        pos++;
        return;
      }
      while (true) {
        skipWhitespace();
        if (peek() != '"') {
          throw error("expected a member name");
        }
        String name = string();
        skipWhitespace();
        if (peek() != ':') {
          throw error("expected ':'");
        }
        pos++;
        skipWhitespace();
        int start = pos;
        if (into != null && peek() == '"') {
          into.put(name, string());
        } else {
          value(depth + 1, null);
          if (into != null) {
            into.put(name, s.substring(start, pos));
          }
        }
        skipWhitespace();
        char c = peek();
        pos++;
        if (c == '}') {
          return;
        }
        if (c != ',') {
          pos--;
          throw error("expected ',' or '}'");
        }
      }
    }

    private void array(int depth) {
      pos++;
      skipWhitespace();
      if (peek() == ']') {
        pos++;
        return;
      }
      while (true) {
        skipWhitespace();
        value(depth + 1, null);
        skipWhitespace();
        char c = peek();
        pos++;
        if (c == ']') {
          return;
        }
        if (c != ',') {
          pos--;
          throw error("expected ',' or ']'");
        }
      }
    }

    private String string() {
      pos++; // opening quote
      StringBuilder out = null;
      int start = pos;
      while (true) {
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos);
        if (c == '"') {
          String result = out == null ? s.substring(start, pos) : out.toString();
          pos++;
          return result;
        }
        if (c < 0x20) {
          throw error("control character in string");
        }
        if (c == '\\') {
          if (out == null) {
            out = new StringBuilder().append(s, start, pos);
          }
          pos++;
          char e = peek();
          switch (e) {
            case '"', '\\', '/' -> out.append(e);
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'n' -> out.append('\n');
            case 'r' -> out.append('\r');
            case 't' -> out.append('\t');
            case 'u' -> {
              if (pos + 4 >= s.length()) {
                throw error("bad unicode escape");
              }
              int code;
              try {
                code = Integer.parseInt(s.substring(pos + 1, pos + 5), 16);
              } catch (NumberFormatException nfe) {
                throw error("bad unicode escape");
              }
              if (code == 0) {
                throw error("\\u0000 is not storable in PostgreSQL jsonb");
              }
              out.append((char) code);
              pos += 4;
            }
            default -> throw error("bad escape '\\" + e + "'");
          }
          pos++;
        } else {
          if (out != null) {
            out.append(c);
          }
          pos++;
        }
      }
    }

    private void literal(String word) {
      if (!s.startsWith(word, pos)) {
        throw error("unexpected literal");
      }
      pos += word.length();
    }

    private void number() {
      int start = pos;
      if (peek() == '-') {
        pos++;
      }
      if (peek() == '0') {
        pos++;
      } else if (peek() >= '1' && peek() <= '9') {
        digits();
      } else {
        throw error("bad number");
      }
      if (peek() == '.') {
        pos++;
        if (!(peek() >= '0' && peek() <= '9')) {
          throw error("bad number");
        }
        digits();
      }
      if (peek() == 'e' || peek() == 'E') {
        pos++;
        if (peek() == '+' || peek() == '-') {
          pos++;
        }
        if (!(peek() >= '0' && peek() <= '9')) {
          throw error("bad number");
        }
        digits();
      }
      if (pos == start) {
        throw error("bad number");
      }
    }

    private void digits() {
      while (peek() >= '0' && peek() <= '9') {
        pos++;
      }
    }
  }
}
