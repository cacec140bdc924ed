package dev.txoutbox.internal.relay;

import org.jspecify.annotations.Nullable;

/**
 * Makes any text safe to store as {@code last_error}: PostgreSQL's {@code text} refuses U+0000 and
 * the driver would turn a lone UTF-16 surrogate into {@code ?}, so both become U+FFFD; the result
 * holds at most {@link #MAX_LENGTH} characters. Public for outbox-wal's facade ({@code
 * internal.kernel.RelayKernel}).
 */
public final class ErrorText {

  /** Longest stored {@code last_error}, in characters. */
  public static final int MAX_LENGTH = 2000;

  private ErrorText() {}

  /** {@code text} with U+0000 and lone surrogates replaced and cut to {@link #MAX_LENGTH}. */
  public static String sanitize(@Nullable String text) {
    if (text == null) {
      return "(no reason given)";
    }
    boolean cut = text.length() > MAX_LENGTH;
    int end = cut ? MAX_LENGTH - 1 : text.length();
    if (cut && Character.isHighSurrogate(text.charAt(end - 1))) {
      end--; // keep a pair whole rather than split it
    }
    StringBuilder sb = new StringBuilder(end + 1);
    for (int i = 0; i < end; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < end
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        sb.append(c).append(text.charAt(++i));
      } else if (c == '\u0000' || Character.isSurrogate(c)) {
        sb.append('\uFFFD');
      } else {
        sb.append(c);
      }
    }
    return cut ? sb.append('…').toString() : sb.toString();
  }
}
