package dev.txoutbox.spi;

import org.jspecify.annotations.Nullable;

/**
 * Neutralises control characters in text meant for people (tables on a terminal, log lines): each
 * becomes a visible escape such as {@code \n} or {@code \u001b}, so text from the database or a
 * broker (an event type, an aggregate id, an error message) can neither move the cursor, recolour
 * the terminal, reorder what is shown nor split a log line. The relay, the CLI and the publishers
 * pass such text through here before logging it; JSON output does not: it escapes by its own rules
 * and stays exact. Thread-safe.
 */
public final class Printable {

  private Printable() {}

  /** {@code text} with every control character escaped, line breaks included. Null stays null. */
  public static @Nullable String of(@Nullable String text) {
    return escape(text, false);
  }

  /** {@code text} with every control character escaped except line feeds and tabs. */
  public static @Nullable String keepingLines(@Nullable String text) {
    return escape(text, true);
  }

  private static @Nullable String escape(@Nullable String text, boolean keepLines) {
    if (text == null || text.codePoints().noneMatch(cp -> isEscaped(cp, keepLines))) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length() + 16);
    text.codePoints()
        .forEach(
            cp -> {
              if (!isEscaped(cp, keepLines)) {
                out.appendCodePoint(cp);
              } else if (cp == '\n') {
                out.append("\\n");
              } else if (cp == '\r') {
                out.append("\\r");
              } else if (cp == '\t') {
                out.append("\\t");
              } else {
                out.append(String.format("\\u%04x", cp));
              }
            });
    return out.toString();
  }

  /**
   * C0 and C1 controls and DEL, the line and paragraph separators, and the bidirectional controls
   * that can make a terminal show text in another order than it is.
   */
  public static boolean isControl(int cp) {
    return Character.getType(cp) == Character.CONTROL
        || cp == 0x2028
        || cp == 0x2029
        || cp == 0x061C
        || cp == 0x200E
        || cp == 0x200F
        || (cp >= 0x202A && cp <= 0x202E)
        || (cp >= 0x2066 && cp <= 0x2069);
  }

  private static boolean isEscaped(int cp, boolean keepLines) {
    return isControl(cp) && !(keepLines && (cp == '\n' || cp == '\t'));
  }
}
