package dev.txoutbox.inbox;

import dev.txoutbox.spi.Printable;
import java.util.Locale;
import java.util.Objects;

/**
 * The rule for a consumer name, checked before anything is written: a name must reach the {@code
 * consumer varchar(255)} column exactly as given, so that two different names are never stored as
 * one. Stateless and thread-safe.
 *
 * <p>The text rules are the writer's (outbox-core's event validation, which this module cannot
 * reach): no U+0000, no unpaired UTF-16 surrogate, length in code points. The blank rule is
 * stricter than {@link String#isBlank()}: a name of no-break spaces or zero-width characters only
 * looks empty in every log and table, so it is refused too.
 */
final class ConsumerName {

  /** At most this many code points of a refused name are listed in its message. */
  private static final int SHOWN = 12;

  private ConsumerName() {}

  /**
   * @return {@code name}
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} holds U+0000 or an unpaired surrogate, shows
   *     nothing, or is longer than {@value OutboxInbox#MAX_CONSUMER_NAME_LENGTH} code points
   */
  static String require(String name) {
    Objects.requireNonNull(name, "consumerName");
    int codePoints = 0;
    boolean visible = false;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      int cp = c;
      if (c == 0) {
        throw new IllegalArgumentException(
            "consumerName must not contain U+0000 (PostgreSQL cannot store it) but did at index "
                + i);
      }
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c)
            || i + 1 == name.length()
            || !Character.isLowSurrogate(name.charAt(i + 1))) {
          // The driver would send '?' instead: "c" + U+D800 and "c" + U+DC00 would both be stored
          // as "c?".
          throw new IllegalArgumentException(
              "consumerName must be valid UTF-16 but had an unpaired surrogate "
                  + codePoint(c)
                  + " at index "
                  + i
                  + " (it has no UTF-8 form)");
        }
        cp = Character.toCodePoint(c, name.charAt(++i));
      }
      codePoints++;
      visible = visible || !isInvisible(cp);
    }
    if (!visible) {
      throw new IllegalArgumentException(
          "consumerName must not be blank (only whitespace, no-break spaces or invisible"
              + " characters such as U+200B) but was "
              + (name.isEmpty() ? "empty" : codePoints(name)));
    }
    if (codePoints > OutboxInbox.MAX_CONSUMER_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "consumerName must be at most "
              + OutboxInbox.MAX_CONSUMER_NAME_LENGTH
              + " characters (the consumer varchar(255) column, which counts code points) but had "
              + codePoints
              + ": '"
              + Printable.of(name.substring(0, name.offsetByCodePoints(0, 40)))
              + "…'");
    }
    return name;
  }

  /**
   * Whether {@code cp} shows nothing on its own: white space of any kind (no-break spaces
   * included), a control or format character (zero-width spaces and joiners, the byte order mark,
   * bidirectional marks), or one of the other default-ignorable code points Unicode lists (Hangul
   * fillers, variation selectors, the combining grapheme joiner).
   */
  static boolean isInvisible(int cp) {
    int type = Character.getType(cp);
    return Character.isWhitespace(cp)
        || Character.isSpaceChar(cp)
        || type == Character.CONTROL
        || type == Character.FORMAT
        || cp == 0x034F
        || cp == 0x115F
        || cp == 0x1160
        || cp == 0x17B4
        || cp == 0x17B5
        || (cp >= 0x180B && cp <= 0x180F)
        || cp == 0x3164
        || (cp >= 0xFE00 && cp <= 0xFE0F)
        || cp == 0xFFA0
        || (cp >= 0xE0100 && cp <= 0xE01EF);
  }

  /** A blank name as its code points, since printing it would show nothing. */
  private static String codePoints(String name) {
    StringBuilder shown = new StringBuilder();
    name.codePoints()
        .limit(SHOWN)
        .forEach(cp -> shown.append(shown.length() == 0 ? "" : " ").append(codePoint(cp)));
    return name.codePointCount(0, name.length()) > SHOWN ? shown + " …" : shown.toString();
  }

  private static String codePoint(int cp) {
    return String.format(Locale.ROOT, "U+%04X", cp);
  }
}
