package dev.txoutbox.spi;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The one rule that keeps credentials out of logs, error messages and {@link Publisher#describe()}.
 * The relay, every broker plugin and the CLI mask through it, so a shape of secret handled here is
 * handled everywhere. Masking errs on the side of hiding: when it cannot tell where a password
 * ends, it hides more than the password.
 *
 * <ul>
 *   <li>{@link #maskUri(String)}: a string known to be one URI ({@code amqp://user:pw@host/vhost},
 *       {@code jdbc:postgresql://host/db?password=pw}). The password of the user info is hidden up
 *       to the <em>last</em> {@code @}, so unencoded {@code /}, {@code #}, {@code ?} or {@code @}
 *       in it never show; a secret query parameter is hidden up to the next {@code &}, whatever it
 *       holds ({@code ,} {@code '} {@code ;} spaces).
 *   <li>{@link #maskText(String)}: free text such as an exception message. Every URI in it as above
 *       (ending at white space), a bare {@code user:password@host}, every {@code name=value} or
 *       {@code name: value} whose name {@linkplain #isSecretKey(String) is a secret} (quoted values
 *       keep their quotes: JAAS {@code password="****"}), and AWS access key ids.
 *   <li>{@link #maskSettings(Map)}: configuration maps. A setting whose name is a secret is hidden
 *       whole ({@code sasl.jaas.config}, {@code ssl.key.password}, {@code aws.secretAccessKey});
 *       any other value is masked as text.
 * </ul>
 *
 * <p>A hidden value reads {@value #MASK}; a value that already starts with it is left as it is, so
 * masking masked text changes nothing. Masking is best effort on free text (a password with a space
 * in a URI inside a sentence cannot be told from the words after it); code that knows a secret's
 * value should not print the text at all, or replace the value itself.
 *
 * <p>This class is thread-safe: it holds no state.
 */
public final class SecretMasking {

  /** What a hidden value is replaced with. */
  public static final String MASK = "****";

  /** Parts of a setting's name (lower case, without {@code . _ -}) that make it a secret. */
  private static final List<String> SECRET_NAME_PARTS =
      List.of(
          "password",
          "passwd",
          "passphrase",
          "pwd",
          "secret",
          "token",
          "credential",
          "jaas",
          "apikey",
          "accesskey",
          "privatekey",
          "keystorekey",
          "sslkey",
          "sessionkey",
          "signature",
          "authorization",
          "userinfo");

  /** The start of a URI: a scheme (possibly {@code jdbc:postgresql}) and {@code ://}. */
  private static final Pattern URI_START =
      Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*(?::[A-Za-z][A-Za-z0-9+.-]*)*://");

  /** A run of non-blank characters: the unit free text is scanned in for URIs. */
  private static final Pattern TOKEN = Pattern.compile("\\S+");

  /** {@code user:password@host} without a scheme, as in "unknown host user:pw@db". */
  private static final Pattern BARE_USER_INFO =
      Pattern.compile("^([^\\w]*[\\w.%+~-]+:)(.+)(@[^@]*)$");

  /**
   * {@code name=value} or {@code name: value}; the name is checked with {@link #isSecretKey}. The
   * value is an HTTP authorization scheme and its credentials ({@code Bearer x}), a double- or
   * single-quoted string, or runs to the next blank or {@code &}.
   */
  private static final Pattern NAME_VALUE =
      Pattern.compile(
          "([A-Za-z0-9_.-]+)(\"?[ \\t]*[=:][ \\t]*)"
              + "((?i:bearer|basic|digest|negotiate)[ \\t]+[^\\s&]+"
              + "|\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|[^\\s&]+)");

  /** AWS access key ids (long-term and temporary). */
  private static final Pattern AWS_ACCESS_KEY_ID =
      Pattern.compile("\\b(?:AKIA|ASIA)[A-Z0-9]{16}\\b");

  private SecretMasking() {}

  /**
   * Whether a setting or parameter named {@code name} holds a secret: its name, ignoring case and
   * the separators {@code . _ -}, contains password, passwd, passphrase, pwd, secret, token,
   * credential, jaas, apikey, accesskey, privatekey, keystorekey, sslkey, sessionkey, signature,
   * authorization or userinfo. Null is not a secret.
   */
  public static boolean isSecretKey(@Nullable String name) {
    if (name == null) {
      return false;
    }
    String n = name.toLowerCase(Locale.ROOT).replaceAll("[._\\-\\s]", "");
    for (String part : SECRET_NAME_PARTS) {
      if (n.contains(part)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code uri}, taken whole as one URI, with the password of its user info and the values of its
   * secret query parameters replaced by {@value #MASK}. A string without {@code ://} is masked as
   * {@link #maskText(String) text}. Null stays null.
   */
  public static @Nullable String maskUri(@Nullable String uri) {
    if (uri == null) {
      return null;
    }
    List<int[]> secrets = secretRanges(uri);
    if (secrets == null) {
      return maskText(uri);
    }
    StringBuilder out = new StringBuilder(uri.length());
    int from = 0;
    for (int[] range : secrets) {
      out.append(uri, from, range[0]).append(MASK);
      // Already masked (text masked twice): keep what follows the mask.
      from = uri.startsWith(MASK, range[0]) ? range[0] + MASK.length() : range[1];
    }
    return out.append(uri.substring(from)).toString();
  }

  /**
   * The secret values {@link #maskUri(String)} hides in {@code uri}, as written and
   * percent-decoded, for code that must also remove them from text it did not write (such as a
   * driver's error message quoting part of the URI). Empty for null or a URI without secrets.
   */
  @SuppressWarnings("NullAway") // ranges is null whenever uri is
  public static List<String> secretsIn(@Nullable String uri) {
    List<int[]> ranges = uri == null ? null : secretRanges(uri);
    if (ranges == null) {
      return List.of();
    }
    List<String> values = new ArrayList<>();
    for (int[] range : ranges) {
      String raw = uri.substring(range[0], range[1]);
      if (!raw.isEmpty()) {
        values.add(raw);
        String decoded = decode(raw);
        if (!decoded.equals(raw)) {
          values.add(decoded);
        }
      }
    }
    return Collections.unmodifiableList(values);
  }

  /**
   * {@code text} with every credential it recognises replaced by {@value #MASK}: in each URI, the
   * user-info password and secret query parameters; a bare {@code user:password@host}; the value of
   * each {@code name=value} and {@code name: value} whose name {@linkplain #isSecretKey(String) is
   * a secret}, quoted values keeping their quotes; AWS access key ids. Null stays null.
   */
  public static @Nullable String maskText(@Nullable String text) {
    if (text == null) {
      return null;
    }
    Matcher token = TOKEN.matcher(text);
    StringBuilder tokens = new StringBuilder(text.length());
    while (token.find()) {
      token.appendReplacement(tokens, Matcher.quoteReplacement(maskToken(token.group())));
    }
    token.appendTail(tokens);

    StringBuilder out = new StringBuilder(tokens.length());
    Matcher pair = NAME_VALUE.matcher(tokens);
    int copied = 0;
    int from = 0;
    while (from < tokens.length() && pair.find(from)) {
      if (isSecretKey(pair.group(1)) && !pair.group(3).startsWith(MASK)) {
        String value = pair.group(3);
        char first = value.charAt(0);
        boolean quoted = value.length() >= 2 && (first == '"' || first == '\'');
        out.append(tokens, copied, pair.start(3)).append(quoted ? first + MASK + first : MASK);
        copied = pair.end(3);
        from = pair.end(3);
      } else {
        from = pair.end(2); // the value may itself be a secret pair: "config: password=x"
      }
    }
    out.append(tokens, copied, tokens.length());
    return AWS_ACCESS_KEY_ID.matcher(out).replaceAll(MASK);
  }

  /**
   * The value of setting {@code name} as it may be shown: {@value #MASK} when the name {@linkplain
   * #isSecretKey(String) is a secret}, otherwise the value {@linkplain #maskText(String) masked as
   * text}. Null stays null.
   */
  public static @Nullable String maskSetting(String name, @Nullable Object value) {
    if (value == null) {
      return null;
    }
    return isSecretKey(name) ? MASK : maskText(String.valueOf(value));
  }

  /**
   * {@code settings} sorted by name, each value {@linkplain #maskSetting(String, Object) as it may
   * be shown}; unmodifiable.
   */
  public static Map<String, String> maskSettings(Map<String, ?> settings) {
    Map<String, String> masked = new TreeMap<>();
    settings.forEach((name, value) -> masked.put(name, maskSetting(name, value)));
    return Collections.unmodifiableMap(masked);
  }

  /** One blank-free run of free text: a URI from its scheme on, or a bare user:password@host. */
  private static String maskToken(String token) {
    Matcher uri = URI_START.matcher(token);
    if (uri.find()) {
      return token.substring(0, uri.start()) + maskUri(token.substring(uri.start()));
    }
    Matcher bare = BARE_USER_INFO.matcher(token);
    if (bare.matches() && !bare.group(1).contains("=")) {
      return bare.group(1) + MASK + bare.group(3);
    }
    return token;
  }

  /**
   * Where the secrets of URI {@code uri} are, as [start, end) ranges in order: the user-info
   * password, then each secret query parameter's value. Null if {@code uri} has no {@code ://}.
   */
  private static @Nullable List<int[]> secretRanges(String uri) {
    int scheme = uri.indexOf("://");
    if (scheme < 0) {
      return null;
    }
    int authority = scheme + 3;
    List<int[]> ranges = new ArrayList<>();
    int afterUserInfo = authority;
    int password = passwordStart(uri, authority);
    if (password >= 0) {
      int at = uri.lastIndexOf('@');
      ranges.add(new int[] {password, at});
      afterUserInfo = at + 1;
    }
    int query = uri.indexOf('?', afterUserInfo);
    if (query >= 0) {
      int from = query + 1;
      while (from <= uri.length()) {
        int amp = uri.indexOf('&', from);
        int end = amp < 0 ? uri.length() : amp;
        int eq = uri.indexOf('=', from);
        if (eq >= 0 && eq < end && isSecretKey(decode(uri.substring(from, eq)))) {
          ranges.add(new int[] {eq + 1, end});
        }
        from = end + 1;
      }
    }
    return ranges;
  }

  /**
   * Where the user-info password of {@code uri} starts (after {@code user:}), or -1 if there is
   * none. The user info ends at the last {@code @}, unless the URI reads {@code
   * host:port/path?…@…}: then the {@code @} belongs to the query (such as {@code user=a@b}).
   */
  private static int passwordStart(String uri, int authority) {
    int colon = -1;
    for (int i = authority; i < uri.length(); i++) {
      char c = uri.charAt(i);
      if (c == ':') {
        colon = i;
        break;
      }
      if (c == '@' || c == '/' || c == '?' || c == '#' || Character.isWhitespace(c)) {
        return -1;
      }
    }
    int at = uri.lastIndexOf('@');
    if (colon < 0 || at < colon) {
      return -1;
    }
    int pathOrQuery = colon + 1;
    while (pathOrQuery < uri.length() && "/?#@".indexOf(uri.charAt(pathOrQuery)) < 0) {
      pathOrQuery++;
    }
    String port = uri.substring(colon + 1, pathOrQuery);
    int query = uri.indexOf('?', colon);
    boolean atInQuery = query >= 0 && query < at;
    if (atInQuery && port.matches("[0-9]{1,5}") && uri.charAt(pathOrQuery) != '@') {
      return -1;
    }
    return colon + 1;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
