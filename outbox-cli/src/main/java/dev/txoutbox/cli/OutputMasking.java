package dev.txoutbox.cli;

import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.SecretMasking;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The CLI's plumbing around {@link SecretMasking}, the one masking rule: everything the CLI prints
 * (stdout, stderr) or logs ({@link LogMasking}) passes through {@link #mask(String)}. First the
 * secrets it was given (the database password, the passwords in its URLs, the values of secret
 * publisher settings) are replaced wherever they appear, even in a driver's message that quotes a
 * fragment of a URL; then {@link SecretMasking}'s rule applies. The CLI has no masking rule of its
 * own. Process-wide, because the log converters have no other way to learn the secrets. Secrets
 * shorter than {@value #MIN_LITERAL} characters are not replaced literally (they would mangle
 * ordinary words) and rely on the rule alone. Thread-safe.
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

  /**
   * From now on, the secrets in the publisher settings {@code values} of {@code provider} are
   * hidden: the passwords and secret parameters of every URI in them, and the whole value of a
   * setting that is {@linkplain PublisherSetting#secret() declared secret} or {@linkplain
   * SecretMasking#isSecretKey named like a secret} (such as {@code producer.ssl.key.password})
   * unless it is a URI, whose other parts are not secret.
   */
  static void hideSettings(PublisherProvider provider, Map<String, String> values) {
    Set<String> secret = new HashSet<>();
    for (PublisherSetting s : provider.settings()) {
      if (s.secret()) {
        secret.add(s.name());
      }
    }
    values.forEach(
        (key, value) -> {
          hide(SecretMasking.secretsIn(value));
          int dot = key.indexOf('.');
          String setting = dot < 0 ? key : key.substring(0, dot);
          boolean isSecret = secret.contains(setting) || SecretMasking.isSecretKey(key);
          if (isSecret && value != null && !value.contains("://")) {
            hide(List.of(value));
          }
        });
  }

  /**
   * From now on, the secrets on the command line {@code args} are hidden, so that no message
   * quoting an argument (the argument parser's included) shows one: the secrets of every URI in an
   * argument, the value of a {@code NAME=VALUE} whose name {@linkplain SecretMasking#isSecretKey is
   * a secret} (also after an option's {@code =}: {@code --producer=sasl.jaas.config=VALUE}), and
   * the argument after an option named like a secret that is not one of {@code names}, the names of
   * the command line's own options and commands (a misplaced {@code --password VALUE}).
   */
  static void hideArguments(List<String> args, Set<String> names) {
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      hide(SecretMasking.secretsIn(arg));
      int eq = arg.indexOf('=');
      boolean own = names.contains(eq < 0 ? arg : arg.substring(0, eq));
      hide(secretValue(own ? arg.substring(eq + 1) : arg));
      boolean secretOption = !own && arg.startsWith("-") && SecretMasking.isSecretKey(arg);
      if (secretOption && eq < 0 && i + 1 < args.size() && !names.contains(args.get(i + 1))) {
        hide(List.of(args.get(i + 1)));
      }
    }
  }

  /**
   * The value of {@code text} if it reads {@code NAME=VALUE} with a secret's name, else that of its
   * value, read the same way ({@code topic=a=password=x} holds {@code x}); none without {@code =}.
   */
  private static List<String> secretValue(String text) {
    int eq = text.indexOf('=');
    if (eq < 0) {
      return List.of();
    }
    String value = text.substring(eq + 1);
    return SecretMasking.isSecretKey(text.substring(0, eq)) ? List.of(value) : secretValue(value);
  }

  /** {@code text} {@linkplain #mask masked} and on one line, control characters escaped. */
  static String line(String text) {
    return Printable.of(mask(text));
  }

  /**
   * {@code text} {@linkplain #mask masked}, its lines kept (a stack trace), other controls escaped.
   */
  static String lines(String text) {
    return Printable.keepingLines(mask(text));
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
