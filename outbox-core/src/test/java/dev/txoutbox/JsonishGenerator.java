package dev.txoutbox;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Seeded inputs for the differential test of the writer against PostgreSQL's {@code jsonb}: valid
 * documents, mutations of them, escapes, numbers at and beyond {@code numeric}'s limits, nesting
 * around the writer's depth limit, odd whitespace, invalid UTF-8 and lone UTF-16 surrogates.
 */
final class JsonishGenerator {

  /**
   * One input. {@code text} is what the String form of the writer gets (null when the bytes are not
   * UTF-8); {@code bytes} what PostgreSQL and the byte[] form get (null when the text has a lone
   * surrogate and so no UTF-8 form).
   */
  record Input(String kind, String text, byte[] bytes) {}

  private static final String[] UNICODE_ESCAPE_DIGITS = {
    "0041", "00e9", "00E9", "20AC", "FFFF", "0000", "001f", "007F", "0022", "005c", "002F",
    "D83D", "DE00", "DBFF", "DC00", "D800", "DFFF", "+041", "-041", "004", "00g1", "0x41",
    "\uFF10\uFF10\uFF14\uFF11", "\u0660\u0660\u0664\u0661", "\u0966\u0966\u096A\u0967", " 041"
  };

  private static final String[] ESCAPES = {
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\x",
    "\\'",
    "\\a",
    "\\0",
    "\\U0041",
    "\\",
    "\\uD83D\\uDE00",
    "\\uDE00\\uD83D",
    "\\uD800\\uD800",
    "\\uD800\\n",
    "\\uD800\\u0041",
    "\\uDBFF\\uDFFF"
  };

  private static final String[] WHITESPACE = {
    " ", "\t", "\n", "\r", "\r\n", "  ", "\f", "\u000b", "\u00a0", "\u2028", "\ufeff", "\u3000",
    "\u0085"
  };

  private static final String[] MANTISSAS = {
    "0",
    "1",
    "-1",
    "9",
    "9.99",
    "0.0001",
    "12345.678",
    "-0",
    "-0.0",
    "0.000",
    "1.50",
    "00",
    "01",
    "1.",
    ".5",
    "-",
    "+1",
    "1e",
    "1e+",
    "0x10",
    "1_000",
    "Infinity",
    "NaN",
    "1.0e",
    "99999.9"
  };

  private static final String[] EXPONENTS = {
    "",
    "e0",
    "E+2",
    "e-2",
    "e131071",
    "e131072",
    "e131068",
    "e131075",
    "e-16383",
    "e-16384",
    "e-16382",
    "e-16390",
    "e1073741822",
    "e1073741823",
    "e1073741824",
    "e-1073741823",
    "e2147483647",
    "e99999999999999999999",
    "e+0000000000000000005",
    "E-0"
  };

  private static final byte[][] BAD_UTF8 = {
    {(byte) 0x80},
    {(byte) 0xC0, (byte) 0xAF},
    {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
    {(byte) 0xED, (byte) 0xBF, (byte) 0xBF},
    {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
    {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
    {(byte) 0xFF},
    {(byte) 0xFE},
    {(byte) 0xE2, (byte) 0x82},
    {(byte) 0xC3},
    {0},
    {(byte) 0xC3, (byte) 0xA9}, // valid: é
    {(byte) 0xF0, (byte) 0x9F, (byte) 0x98, (byte) 0x80} // valid: 😀
  };

  private final Random random;

  JsonishGenerator(long seed) {
    this.random = new Random(seed);
  }

  Input next() {
    int pick = random.nextInt(100);
    if (pick < 22) {
      return text("valid", document(random.nextInt(5)));
    } else if (pick < 44) {
      return text("mutated", mutate(document(random.nextInt(4))));
    } else if (pick < 56) {
      return text("escapes", escapes());
    } else if (pick < 70) {
      return text("numbers", numbers());
    } else if (pick < 78) {
      return text("nesting", nesting());
    } else if (pick < 86) {
      return text("whitespace", whitespace());
    } else if (pick < 96) {
      return bytes("utf8", invalidUtf8());
    } else {
      return loneSurrogate();
    }
  }

  // ---- kinds of input ----

  private String escapes() {
    StringBuilder s = new StringBuilder("\"");
    int n = 1 + random.nextInt(4);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(4)) {
        case 0 -> s.append("\\u").append(pick(UNICODE_ESCAPE_DIGITS));
        case 1 -> s.append(pick(ESCAPES));
        case 2 -> s.append((char) random.nextInt(0x21)); // raw control characters and space
        default -> s.append(pick(List.of("a", "\u00e9", "\u20ac", "\uD83D\uDE00", "\u007f", "'")));
      }
    }
    String string = s.append('"').toString();
    return random.nextBoolean() ? string : "{" + string + ":" + string + "}";
  }

  private String numbers() {
    String number;
    // Few of the huge ones: they cost PostgreSQL and the writer 100-400 KB each.
    switch (random.nextInt(24)) {
      case 0 -> number = "1" + "0".repeat(131_070 + random.nextInt(4)); // 131,071 to 131,074 digits
      case 1 -> number = "0." + "0".repeat(16_381 + random.nextInt(3)) + pick(List.of("1", "0"));
      case 2 -> number = "[" + String.join(",", nCopies("1e131071", 1 + random.nextInt(3))) + "]";
      default -> number = pick(MANTISSAS) + pick(EXPONENTS);
    }
    return switch (random.nextInt(3)) {
      case 0 -> number;
      case 1 -> "[" + number + "]";
      default -> "{\"n\":" + number + "}";
    };
  }

  private String nesting() {
    int depth =
        pick(List.of(1, 2, 499, 500, 501, 502, 1_000, 5_000, 20_000, 1 + random.nextInt(600)));
    StringBuilder open = new StringBuilder();
    StringBuilder close = new StringBuilder();
    for (int i = 0; i < depth; i++) {
      boolean array =
          switch (random.nextInt(3)) {
            case 0 -> true;
            case 1 -> false;
            default -> i % 2 == 0;
          };
      open.append(array ? "[" : "{\"k\":");
      close.insert(0, array ? "]" : "}");
    }
    String inner = pick(List.of("1", "[]", "{}", "\"x\""));
    String doc = open + inner + close;
    return random.nextInt(10) == 0 ? doc.substring(0, doc.length() - 1) : doc;
  }

  private String whitespace() {
    String doc = document(3);
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < doc.length(); i++) {
      char c = doc.charAt(i);
      boolean structural = c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':';
      if (structural && random.nextInt(3) == 0) {
        s.append(pick(WHITESPACE));
      }
      s.append(c);
    }
    return pick(WHITESPACE) + s + pick(WHITESPACE);
  }

  private byte[] invalidUtf8() {
    byte[] doc = document(3).getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = random.nextInt(doc.length + 1);
    out.write(doc, 0, at);
    out.writeBytes(BAD_UTF8[random.nextInt(BAD_UTF8.length)]);
    out.write(doc, at, doc.length - at);
    return out.toByteArray();
  }

  private Input loneSurrogate() {
    char lone = (char) (0xD800 + random.nextInt(0x800));
    String doc =
        switch (random.nextInt(3)) {
          case 0 -> "\"a" + lone + "b\"";
          case 1 -> "[\"" + lone + "\"]";
          default -> "{\"k" + lone + "\":1}";
        };
    return new Input("surrogate", doc, null);
  }

  // ---- building blocks ----

  private String document(int depth) {
    if (depth <= 0 || random.nextInt(4) == 0) {
      return scalar();
    }
    int n = random.nextInt(4);
    StringBuilder s = new StringBuilder();
    if (random.nextBoolean()) {
      s.append('[');
      for (int i = 0; i < n; i++) {
        s.append(i == 0 ? "" : ",").append(document(depth - 1));
      }
      return s.append(']').toString();
    }
    s.append('{');
    for (int i = 0; i < n; i++) {
      // Keys distinct per object: the writer counts a duplicate key PostgreSQL would drop.
      s.append(i == 0 ? "" : ",")
          .append("\"k")
          .append(i)
          .append(pick(List.of("", "\u00e9", "\\n")));
      s.append("\":").append(document(depth - 1));
    }
    return s.append('}').toString();
  }

  private String scalar() {
    return switch (random.nextInt(8)) {
      case 0 -> "true";
      case 1 -> "false";
      case 2 -> "null";
      case 3 -> Integer.toString(random.nextInt(2_000_000) - 1_000_000);
      case 4 ->
          random.nextInt(1000) + "." + random.nextInt(1000) + pick(EXPONENTS).replace("131", "1");
      case 5 -> "\"\"";
      default ->
          "\""
              + pick(
                  List.of(
                      "a", "b c", "\u00e9t\u00e9", "\\u00e9", "\\\"q\\\"", "\uD83D\uDE00", "\\t"))
              + "\"";
    };
  }

  private String mutate(String doc) {
    StringBuilder s = new StringBuilder(doc);
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = s.length() == 0 ? 0 : random.nextInt(s.length() + 1);
      String piece =
          pick(
              List.of(
                  "{", "}", "[", "]", ",", ":", "\"", "\\", "0", "-", ".", "e", "t", "n", " ",
                  "\u00e9", "\u0000", "\u0001", "1e99999", "\\u", "tru", "nul"));
      switch (random.nextInt(4)) {
        case 0 -> s.insert(at, piece);
        case 1 -> {
          if (at < s.length()) {
            s.deleteCharAt(at);
          }
        }
        case 2 -> {
          if (at < s.length()) {
            s.replace(at, at + 1, piece);
          }
        }
        default -> s.setLength(Math.min(s.length(), at));
      }
    }
    return s.toString();
  }

  /** An input given as text; a mutation may have split a surrogate pair, leaving no UTF-8 form. */
  private static Input text(String kind, String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return new Input(kind + "+surrogate", text, null);
      }
    }
    return new Input(kind, text, text.getBytes(StandardCharsets.UTF_8));
  }

  private static Input bytes(String kind, byte[] bytes) {
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      text = null;
    }
    return new Input(kind, text, bytes);
  }

  private <T> T pick(List<T> choices) {
    return choices.get(random.nextInt(choices.size()));
  }

  private String pick(String[] choices) {
    return choices[random.nextInt(choices.length)];
  }

  private static List<String> nCopies(String s, int n) {
    return java.util.Collections.nCopies(n, s);
  }
}
