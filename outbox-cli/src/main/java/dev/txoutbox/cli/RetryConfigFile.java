package dev.txoutbox.cli;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.Printable;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The retry policies of a {@code --retry-config} properties file (or the {@code retry.*} keys of a
 * {@code --publisher-config} file): the default policy's settings, and policies per event type and
 * per aggregate type. A key is {@code retry.default.SETTING}, {@code retry.event-type.TYPE.SETTING}
 * or {@code retry.aggregate-type.TYPE.SETTING}: the setting is the key's <b>last</b> part, so a
 * type may itself contain dots ({@code retry.event-type.payment.captured.max-attempts=200} sets
 * {@code max-attempts} of event type {@code payment.captured}). The default policy's flags win over
 * its keys; a setting a type does not give is the default policy's. Any other key is refused,
 * naming it. Immutable.
 */
final class RetryConfigFile {

  /** The flag that names the file. */
  static final String FLAG = "--retry-config";

  /** How a key of the default policy starts. */
  static final String DEFAULT = "retry.default.";

  /** How a key for an event type starts. */
  static final String EVENT_TYPE = "retry.event-type.";

  /** How a key for an aggregate type starts. */
  static final String AGGREGATE_TYPE = "retry.aggregate-type.";

  /** The value of {@code max-age} that gives a type no age limit whatever the default's. */
  static final String NO_MAX_AGE = "none";

  /** The longest type name: the columns' 255 characters. */
  static final int MAX_TYPE_LENGTH = 255;

  /** What a policy in the file may set: the last part of a key, each a relay option's key. */
  enum Setting {
    MAX_ATTEMPTS(RelayOptions.MAX_ATTEMPTS),
    BACKOFF_INITIAL(RelayOptions.BACKOFF_INITIAL),
    BACKOFF_MAX(RelayOptions.BACKOFF_MAX),
    BACKOFF_MULTIPLIER(RelayOptions.BACKOFF_MULTIPLIER),
    BACKOFF_JITTER(RelayOptions.BACKOFF_JITTER),
    MAX_AGE(RelayOptions.MAX_AGE);

    final RelayOption<?> option;
    final String key;

    Setting(RelayOption<?> option) {
      this.option = option;
      this.key = Objects.requireNonNull(option.key(), option.name());
    }

    static @Nullable Setting of(String key) {
      for (Setting s : values()) {
        if (s.key.equals(key)) {
          return s;
        }
      }
      return null;
    }
  }

  /** The settings, for help and errors. */
  static final String SETTINGS_TEXT =
      Arrays.stream(Setting.values()).map(s -> s.key).collect(Collectors.joining(", "));

  /** A key given and its value. */
  record Entry(String key, String value) {}

  /** The policies per type the file makes, each in the file's order. */
  record Policies(Map<String, RetryPolicy> eventTypes, Map<String, RetryPolicy> aggregateTypes) {

    /** Gives {@code b} every policy. */
    void apply(RelayConfig.Builder b) {
      eventTypes.forEach(b::retryPolicy);
      aggregateTypes.forEach(b::aggregateRetryPolicy);
    }
  }

  private final Map<Setting, Entry> defaults;

  /** Per {@code prefix + type}, the settings given. */
  private final Map<String, Map<Setting, Entry>> types;

  private RetryConfigFile(Map<Setting, Entry> defaults, Map<String, Map<Setting, Entry>> types) {
    this.defaults = defaults;
    this.types = types;
  }

  /**
   * The policies per type of {@code entries}, each setting they do not give {@code defaults}'.
   *
   * @throws IllegalArgumentException naming the key and the limit
   */
  static Policies parse(Map<String, String> entries, RetryPolicy defaults) {
    return parse(entries).policies(defaults, setting -> "--" + setting.key);
  }

  /**
   * The keys of {@code entries} (key to value, in the file's order), checked.
   *
   * @throws IllegalArgumentException naming the key and the rule
   */
  static RetryConfigFile parse(Map<String, String> entries) {
    Map<Setting, Entry> defaults = new EnumMap<>(Setting.class);
    Map<String, Map<Setting, Entry>> types = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      String key = e.getKey();
      Entry entry = new Entry(key, e.getValue());
      if (key.startsWith(DEFAULT)) {
        String name = key.substring(DEFAULT.length());
        Setting setting = Setting.of(name);
        if (setting == null) {
          throw new IllegalArgumentException(notASetting(key, name));
        }
        defaults.put(setting, entry);
        continue;
      }
      String prefix =
          key.startsWith(EVENT_TYPE)
              ? EVENT_TYPE
              : key.startsWith(AGGREGATE_TYPE) ? AGGREGATE_TYPE : null;
      if (prefix == null) {
        throw new IllegalArgumentException(
            "a key must be "
                + EVENT_TYPE
                + "TYPE.SETTING, "
                + AGGREGATE_TYPE
                + "TYPE.SETTING or "
                + DEFAULT
                + "SETTING but was '"
                + Printable.of(key)
                + "'");
      }
      String rest = key.substring(prefix.length());
      int dot = rest.lastIndexOf('.');
      Setting setting = Setting.of(rest.substring(dot + 1));
      if (setting == null) {
        throw new IllegalArgumentException(notASetting(key, rest.substring(dot + 1)));
      }
      String type = dot < 0 ? "" : rest.substring(0, dot);
      if (type.isBlank() || type.codePointCount(0, type.length()) > MAX_TYPE_LENGTH) {
        throw new IllegalArgumentException(
            "the type in key '"
                + Printable.of(key)
                + "' must be 1 to "
                + MAX_TYPE_LENGTH
                + " characters, not blank, between "
                + prefix
                + " and ."
                + setting.key
                + " but was '"
                + Printable.of(type)
                + "'");
      }
      types.computeIfAbsent(prefix + type, t -> new EnumMap<>(Setting.class)).put(setting, entry);
    }
    return new RetryConfigFile(defaults, types);
  }

  private static String notASetting(String key, String last) {
    return "the last part of key '"
        + Printable.of(key)
        + "' must be a setting, one of "
        + SETTINGS_TEXT
        + ", but was '"
        + Printable.of(last)
        + "'";
  }

  /** The default policy's setting {@code s} as the file gives it, or null. */
  @Nullable Entry defaultSetting(Setting s) {
    return defaults.get(s);
  }

  /**
   * The policies per type, each setting a type does not give {@code defaults}', named in errors by
   * {@code inherited} (the flag or the file's default key that set it).
   *
   * @throws IllegalArgumentException naming the key and the limit
   */
  Policies policies(RetryPolicy defaults, Function<Setting, String> inherited) {
    Map<String, RetryPolicy> eventTypes = new LinkedHashMap<>();
    Map<String, RetryPolicy> aggregateTypes = new LinkedHashMap<>();
    types.forEach(
        (prefixedType, settings) -> {
          RetryPolicy p = policy(settings, defaults, inherited);
          if (prefixedType.startsWith(EVENT_TYPE)) {
            eventTypes.put(prefixedType.substring(EVENT_TYPE.length()), p);
          } else {
            aggregateTypes.put(prefixedType.substring(AGGREGATE_TYPE.length()), p);
          }
        });
    return new Policies(
        Collections.unmodifiableMap(eventTypes), Collections.unmodifiableMap(aggregateTypes));
  }

  /** One type's policy: the settings given, the others {@code defaults}'. */
  private static RetryPolicy policy(
      Map<Setting, Entry> settings, RetryPolicy defaults, Function<Setting, String> inherited) {
    // A setting given is named by its key, one inherited by what set the default.
    Map<RelayOption<?>, String> names = new HashMap<>();
    for (Setting s : Setting.values()) {
      Entry given = settings.get(s);
      names.put(s.option, given != null ? given.key() : inherited.apply(s));
    }
    RelayOption.Spelling spelling = OptionFlags.named(names);
    Entry a = settings.get(Setting.MAX_ATTEMPTS);
    int attempts = a == null ? defaults.maxAttempts() : attempts(a);
    Backoff d = defaults.backoff();
    Backoff backoff =
        backoff(
            orElse(
                settings.get(Setting.BACKOFF_INITIAL), RetryConfigFile::duration, d.initialDelay()),
            orElse(settings.get(Setting.BACKOFF_MAX), RetryConfigFile::duration, d.maxDelay()),
            orElse(
                settings.get(Setting.BACKOFF_MULTIPLIER), RetryConfigFile::number, d.multiplier()),
            orElse(settings.get(Setting.BACKOFF_JITTER), RetryConfigFile::number, d.jitter()),
            spelling);
    RetryPolicy p = RetryPolicy.of(attempts, backoff);
    Entry age = settings.get(Setting.MAX_AGE);
    Duration maxAge = age == null ? defaults.maxAge() : maxAge(age);
    return maxAge == null ? p : p.withMaxAge(maxAge);
  }

  private static <T> T orElse(@Nullable Entry e, Function<Entry, T> read, T otherwise) {
    return e == null ? otherwise : read.apply(e);
  }

  /**
   * The attempts {@code e} gives.
   *
   * @throws IllegalArgumentException naming the key unless a whole number from 1 to 1000
   */
  static int attempts(Entry e) {
    int attempts;
    try {
      attempts = Integer.parseInt(e.value());
    } catch (NumberFormatException x) {
      attempts = 0;
    }
    if (attempts < 1 || attempts > RetryPolicy.MAX_ATTEMPTS_LIMIT || !e.value().matches("[0-9]+")) {
      throw new IllegalArgumentException(
          e.key()
              + " must be a whole number between 1 and "
              + RetryPolicy.MAX_ATTEMPTS_LIMIT
              + " but was '"
              + Printable.of(e.value())
              + "'");
    }
    return attempts;
  }

  /**
   * The duration {@code e} gives.
   *
   * @throws IllegalArgumentException naming the key unless a duration
   */
  static Duration duration(Entry e) {
    try {
      return DurationText.parse(e.value());
    } catch (IllegalArgumentException x) {
      throw new IllegalArgumentException(e.key() + " " + x.getMessage(), x);
    }
  }

  /**
   * The number {@code e} gives.
   *
   * @throws IllegalArgumentException naming the key unless a finite number
   */
  static double number(Entry e) {
    try {
      double x = Double.parseDouble(e.value());
      if (Double.isFinite(x)) {
        return x;
      }
    } catch (NumberFormatException x) {
      // said below
    }
    throw new IllegalArgumentException(
        e.key() + " must be a number but was '" + Printable.of(e.value()) + "'");
  }

  /**
   * The age limit {@code e} gives: null for {@value #NO_MAX_AGE}.
   *
   * @throws IllegalArgumentException naming the key unless a positive duration or {@value
   *     #NO_MAX_AGE}
   */
  static @Nullable Duration maxAge(Entry e) {
    if (e.value().equals(NO_MAX_AGE)) {
      return null;
    }
    Duration d = duration(e);
    if (d.isZero()) {
      throw new IllegalArgumentException(
          e.key() + " must be positive (or " + NO_MAX_AGE + ") but was 0ms");
    }
    return d;
  }

  /**
   * The backoff of these values, each checked by its option's rule with an error naming it as
   * {@code spelling} does (a flag, or a key of the file).
   *
   * @throws IllegalArgumentException naming the setting and its limit
   */
  static Backoff backoff(
      Duration initial,
      Duration max,
      double multiplier,
      double jitter,
      RelayOption.Spelling spelling) {
    RelayOptions.BACKOFF_INITIAL.check(initial, null, spelling);
    RelayOptions.BACKOFF_MAX.check(max, initial, spelling);
    RelayOptions.BACKOFF_MULTIPLIER.check(multiplier, null, spelling);
    RelayOptions.BACKOFF_JITTER.check(jitter, null, spelling);
    return new Backoff(initial, max, multiplier, jitter);
  }
}
