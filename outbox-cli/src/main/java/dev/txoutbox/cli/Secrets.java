package dev.txoutbox.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides credentials in text that is about to be logged or printed: JDBC URLs, AMQP URIs, Kafka
 * settings. Masking is best effort on known shapes; the rule for everything else is to never print
 * a value whose name looks secret. Thread-safe: it holds no state.
 */
final class Secrets {

  /** What a hidden value is replaced with. */
  static final String MASK = "****";

  /** {@code scheme://user:password@} in any URI, including {@code jdbc:postgresql://}. */
  private static final Pattern USER_INFO =
      Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^:@/?#\\s]*):[^@/?#\\s]*@");

  /**
   * {@code name=value} where the name ends like a secret: URL query parameters ({@code
   * ?password=x&}), JDBC properties ({@code ;password=x}), JAAS options ({@code password="x"}).
   */
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile(
          "(?i)(\\b[\\w.-]*(?:password|passwd|pwd|secret|token|credentials?|apikey|api[_.-]key)"
              + "\\s*=\\s*)(\"[^\"]*\"|'[^']*'|[^&;,\\s\"']*)");

  private Secrets() {}

  /**
   * {@code text} with every password it recognises replaced by {@value #MASK}: the password of
   * {@code user:password@host} in a URI, and the value of each {@code name=value} whose name ends
   * in password, secret, token, credentials or api key (quoted values keep their quotes). Null
   * stays null.
   */
  static String mask(String text) {
    if (text == null) {
      return null;
    }
    String masked =
        USER_INFO.matcher(text).replaceAll("$1:" + Matcher.quoteReplacement(MASK) + "@");
    Matcher m = SECRET_PARAMETER.matcher(masked);
    StringBuilder out = new StringBuilder(masked.length());
    while (m.find()) {
      String value = m.group(2);
      String replacement;
      if (value.length() >= 2 && (value.startsWith("\"") || value.startsWith("'"))) {
        char quote = value.charAt(0);
        replacement = quote + MASK + quote;
      } else {
        replacement = MASK;
      }
      m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * The value of a setting as it may be shown: {@value #MASK} when {@code name} is a secret (such
   * as {@code sasl.jaas.config}, {@code ssl.key.password}, anything with password, secret, token,
   * credential or jaas in its name), otherwise {@link #mask(String)} of it.
   */
  static String maskSetting(String name, String value) {
    if (value == null) {
      return null;
    }
    return isSecretName(name) ? MASK : mask(value);
  }

  /** Whether a setting named {@code name} holds a secret. */
  static boolean isSecretName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.contains("password")
        || n.contains("passwd")
        || n.contains("secret")
        || n.contains("token")
        || n.contains("credential")
        || n.contains("jaas")
        || n.endsWith("ssl.keystore.key")
        || n.endsWith("apikey")
        || n.endsWith("api.key")
        || n.endsWith("api-key");
  }
}
