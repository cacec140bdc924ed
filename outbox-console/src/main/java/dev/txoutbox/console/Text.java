package dev.txoutbox.console;

import dev.txoutbox.spi.SecretMasking;
import org.jspecify.annotations.Nullable;

/** How the console quotes and shortens text it shows, and masks what may hold a secret. */
final class Text {

  /** Longest excerpt of a value quoted back in a message: 100 characters. */
  private static final int QUOTED = 100;

  private Text() {}

  /** {@code value} in single quotes, cut after {@value #QUOTED} characters. */
  static String quoted(String value) {
    return "'" + cut(value, QUOTED) + "'";
  }

  /** {@code value}, cut after {@code max} characters with an ellipsis. */
  static String cut(String value, int max) {
    return value.length() <= max ? value : value.substring(0, max) + "…";
  }

  /** An error text as it may be shown: {@link SecretMasking#maskText(String)}. */
  static @Nullable String masked(@Nullable String error) {
    return SecretMasking.maskText(error);
  }
}
