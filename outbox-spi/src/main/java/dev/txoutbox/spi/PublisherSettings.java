package dev.txoutbox.spi;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The values given for a {@link PublisherProvider}'s settings, checked against its {@link
 * PublisherProvider#settings()}: plain keys ({@code bootstrap-servers}) and, for {@link
 * PublisherSetting.Type#MAP} settings, prefixed keys ({@code topic.order}). Typed reads name the
 * setting in their errors as its flag ({@code --send-timeout must be …}). Immutable.
 */
public final class PublisherSettings {

  /** A word that may be a builder option's name: not part of a dotted or dashed name. */
  private static final Pattern OPTION_WORD =
      Pattern.compile("(?<![\\w.-])[A-Za-z][A-Za-z0-9]*(?![\\w.-])");

  private final String publisher;
  private final String clientName;
  private final Map<String, PublisherSetting> declared;
  private final Map<String, String> values;

  private PublisherSettings(
      String publisher,
      String clientName,
      Map<String, PublisherSetting> declared,
      Map<String, String> values) {
    this.publisher = publisher;
    this.clientName = clientName;
    this.declared = declared;
    this.values = values;
  }

  /**
   * {@code values} for {@code provider}.
   *
   * @param clientName how the publisher names itself to the broker where it can (a connection name,
   *     a client id), such as {@code txoutbox-relay-orders}
   * @throws IllegalArgumentException if a key is not one of the provider's settings (a typo, or
   *     another broker's setting)
   */
  public static PublisherSettings of(
      PublisherProvider provider, String clientName, Map<String, String> values) {
    Objects.requireNonNull(clientName, "clientName");
    Map<String, PublisherSetting> declared = new LinkedHashMap<>();
    for (PublisherSetting s : provider.settings()) {
      declared.put(s.name(), s);
    }
    for (String key : values.keySet()) {
      if (settingOf(declared, key) == null) {
        throw new IllegalArgumentException(
            "a setting of publisher "
                + provider.name()
                + " must be one of "
                + names(declared)
                + " but was '"
                + key
                + "'");
      }
    }
    return new PublisherSettings(
        provider.name(),
        clientName,
        Collections.unmodifiableMap(declared),
        Collections.unmodifiableMap(new TreeMap<>(values)));
  }

  /** The provider's name, such as {@code kafka}. */
  public String publisher() {
    return publisher;
  }

  /** How the publisher names itself to the broker, such as {@code txoutbox-relay-orders}. */
  public String clientName() {
    return clientName;
  }

  /** The text of setting {@code name}, or its default. */
  public Optional<String> text(String name) {
    String value = values.get(name);
    return Optional.ofNullable(value != null ? value : declared(name).defaultValue());
  }

  /**
   * @throws IllegalArgumentException naming the flag when the setting is missing or blank
   */
  public String required(String name) {
    return text(name)
        .filter(v -> !v.isBlank())
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "--"
                        + name
                        + " (or "
                        + name
                        + " in a settings file) must be given for publisher "
                        + publisher
                        + " but was not"));
  }

  /**
   * @throws IllegalArgumentException naming the flag when the value is not a duration
   */
  public Optional<Duration> duration(String name) {
    Optional<String> text = text(name);
    try {
      return text.map(DurationText::parse);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--" + name + " " + e.getMessage(), e);
    }
  }

  /**
   * @throws IllegalArgumentException naming the flag when the value is neither true nor false
   */
  public boolean flag(String name) {
    return text(name)
        .map(
            v -> {
              String b = v.trim().toLowerCase(Locale.ROOT);
              if (!b.equals("true") && !b.equals("false")) {
                throw new IllegalArgumentException(
                    "--" + name + " must be true or false but was '" + v + "'");
              }
              return Boolean.parseBoolean(b);
            })
        .orElse(false);
  }

  /**
   * The entries of map setting {@code name} ({@code topic.order=orders} → {@code order}), sorted.
   */
  public Map<String, String> map(String name) {
    declared(name);
    String prefix = name + ".";
    Map<String, String> out = new TreeMap<>();
    values.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    return Collections.unmodifiableMap(out);
  }

  /**
   * A builder's error in the words of the settings, for {@link PublisherProvider#create}: each
   * option name of {@code flags} (builder option to flag, such as {@code sendTimeout} to {@code
   * --send-timeout}) becomes its flag, and secrets are masked. A camel-case name is replaced
   * wherever it stands as a word of its own; a plain word ({@code uri}, {@code exchange}) only as
   * the message's first word, where it names the option rather than the thing. A message of this
   * class already names flags and passes unchanged.
   */
  public static IllegalArgumentException inFlags(RuntimeException e, Map<String, String> flags) {
    String message = String.valueOf(e.getMessage());
    Matcher word = OPTION_WORD.matcher(message);
    StringBuilder out = new StringBuilder(message.length() + 16);
    while (word.find()) {
      String name = word.group();
      String flag = flags.get(name);
      boolean camelCase = !name.equals(name.toLowerCase(Locale.ROOT));
      boolean replace = flag != null && (camelCase || word.start() == 0);
      word.appendReplacement(out, Matcher.quoteReplacement(replace ? flag : name));
    }
    word.appendTail(out);
    return new IllegalArgumentException(SecretMasking.maskText(out.toString()), e);
  }

  /** Every value given, secrets masked, for a log line. */
  @Override
  @SuppressWarnings("NullAway") // the constructor checked that every value's setting is declared
  public String toString() {
    StringJoiner j = new StringJoiner(", ", publisher + "{", "}");
    values.forEach(
        (k, v) -> {
          PublisherSetting s = settingOf(declared, k);
          j.add(k + "=" + (s.secret() ? SecretMasking.MASK : SecretMasking.maskSetting(k, v)));
        });
    return j.toString();
  }

  private PublisherSetting declared(String name) {
    PublisherSetting s = declared.get(name);
    if (s == null) {
      throw new IllegalArgumentException(
          "setting '" + name + "' must be declared by publisher " + publisher + " but was not");
    }
    return s;
  }

  private static @Nullable PublisherSetting settingOf(
      Map<String, PublisherSetting> declared, String key) {
    PublisherSetting plain = declared.get(key);
    if (plain != null) {
      return plain.type() == PublisherSetting.Type.MAP ? null : plain;
    }
    int dot = key.indexOf('.');
    if (dot > 0 && dot < key.length() - 1) {
      PublisherSetting map = declared.get(key.substring(0, dot));
      if (map != null && map.type() == PublisherSetting.Type.MAP) {
        return map;
      }
    }
    return null;
  }

  private static String names(Map<String, PublisherSetting> declared) {
    List<String> names =
        declared.values().stream()
            .map(s -> s.type() == PublisherSetting.Type.MAP ? s.name() + ".*" : s.name())
            .toList();
    return String.join(", ", names);
  }
}
