package dev.txoutbox.cli;

import dev.txoutbox.spi.SecretMasking;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Everything the CLI prints or logs passes through {@link #mask(String)}: first the secrets it was
 * given (the database password, the passwords in its URLs) are replaced wherever they appear, even
 * in a driver's message that quotes a fragment of a URL; then {@link SecretMasking}'s rule applies.
 * Process-wide, because the log converters have no other way to learn the secrets. Secrets shorter
 * than {@value #MIN_LITERAL} characters are not replaced literally (they would mangle ordinary
 * words) and rely on the rule alone. Thread-safe.
 */
final class OutputMasking {

  /** The shortest secret replaced wherever it appears. */
  static final int MIN_LITERAL = 4;

  private static final List<String> KNOWN = new CopyOnWriteArrayList<>();

  private OutputMasking() {}

  /** From now on, {@code secrets} are hidden wherever they appear in output and logs. */
  static synchronized void hide(Collection<String> secrets) {
    for (String s : secrets) {
      if (s != null && s.length() >= MIN_LITERAL && !KNOWN.contains(s)) {
        KNOWN.add(s);
      }
    }
    // Longest first, so a secret containing another is replaced whole.
    KNOWN.sort(Comparator.comparingInt(String::length).reversed());
  }

  /** {@code text} with the known secrets and every credential shape replaced by {@code ****}. */
  static String mask(String text) {
    if (text == null) {
      return null;
    }
    String t = text;
    for (String secret : KNOWN) {
      t = t.replace(secret, SecretMasking.MASK);
    }
    return SecretMasking.maskText(t);
  }
}
