package dev.txoutbox.cli;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.Printable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The retry policies of a {@code --retry-config} properties file, per event type and per aggregate
 * type. A key is {@code retry.event-type.TYPE.SETTING} or {@code
 * retry.aggregate-type.TYPE.SETTING}: the setting is the key's <b>last</b> part, so a type may
 * itself contain dots ({@code retry.event-type.payment.captured.max-attempts=200} sets {@code
 * max-attempts} of event type {@code payment.captured}). A setting a type does not give is the
 * default policy's (the relay's flags). Any other key is refused, naming it. Immutable.
 */
final class RetryConfigFile {

  /** The flag that names the file. */
  static final String FLAG = "--retry-config";

  /** How a key for an event type starts. */
  static final String EVENT_TYPE = "retry.event-type.";

  /** How a key for an aggregate type starts. */
  static final String AGGREGATE_TYPE = "retry.aggregate-type.";

  /** The value of {@code max-age} that gives a type no age limit whatever the default's. */
  static final String NO_MAX_AGE = "none";

  /** The longest type name: the columns' 255 characters. */
  static final int MAX_TYPE_LENGTH = 255;

  /** What a policy in the file may set: the last part of a key. */
  enum Setting {
    MAX_ATTEMPTS("max-attempts"),
    BACKOFF_INITIAL("backoff-initial"),
    BACKOFF_MAX("backoff-max"),
    BACKOFF_MULTIPLIER("backoff-multiplier"),
    BACKOFF_JITTER("backoff-jitter"),
    MAX_AGE("max-age");

    final String key;

    Setting(String key) {
      this.key = key;
    }

    static Setting of(String key) {
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
      "max-attempts, backoff-initial, backoff-max, backoff-multiplier, backoff-jitter, max-age";

  private final Map<String, RetryPolicy> eventTypes;
  private final Map<String, RetryPolicy> aggregateTypes;

  private RetryConfigFile(
      Map<String, RetryPolicy> eventTypes, Map<String, RetryPolicy> aggregateTypes) {
    this.eventTypes = Collections.unmodifiableMap(eventTypes);
    this.aggregateTypes = Collections.unmodifiableMap(aggregateTypes);
  }

  /**
   * The policies of {@code file}, each setting it does not give taken from {@code defaults}.
   *
   * @throws IllegalArgumentException naming the flag, the file, the key and the limit
   */
  static RetryConfigFile read(Path file, RetryPolicy defaults) {
    Map<String, String> entries = PropertiesFile.read(FLAG, file);
    try {
      return parse(entries, defaults);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(FLAG + " " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The policies of {@code entries} (key to value, in the file's order).
   *
   * @throws IllegalArgumentException naming the key and the limit
   */
  static RetryConfigFile parse(Map<String, String> entries, RetryPolicy defaults) {
    // Per "prefix + type", the settings given: key and value.
    Map<String, Map<Setting, String[]>> given = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : entries.entrySet()) {
      String key = e.getKey();
      String prefix =
          key.startsWith(EVENT_TYPE)
              ? EVENT_TYPE
              : key.startsWith(AGGREGATE_TYPE) ? AGGREGATE_TYPE : null;
      if (prefix == null) {
        throw new IllegalArgumentException(
            "a key must be "
                + EVENT_TYPE
                + "TYPE.SETTING or "
                + AGGREGATE_TYPE
                + "TYPE.SETTING but was '"
                + Printable.of(key)
                + "'");
      }
      String rest = key.substring(prefix.length());
      int dot = rest.lastIndexOf('.');
      Setting setting = Setting.of(rest.substring(dot + 1));
      if (setting == null) {
        throw new IllegalArgumentException(
            "the last part of key '"
                + Printable.of(key)
                + "' must be a setting, one of "
                + SETTINGS_TEXT
                + ", but was '"
                + Printable.of(rest.substring(dot + 1))
                + "'");
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
      given
          .computeIfAbsent(prefix + type, t -> new EnumMap<>(Setting.class))
          .put(setting, new String[] {key, e.getValue()});
    }
    Map<String, RetryPolicy> eventTypes = new LinkedHashMap<>();
    Map<String, RetryPolicy> aggregateTypes = new LinkedHashMap<>();
    given.forEach(
        (prefixedType, settings) -> {
          RetryPolicy p = policy(settings, defaults);
          if (prefixedType.startsWith(EVENT_TYPE)) {
            eventTypes.put(prefixedType.substring(EVENT_TYPE.length()), p);
          } else {
            aggregateTypes.put(prefixedType.substring(AGGREGATE_TYPE.length()), p);
          }
        });
    return new RetryConfigFile(eventTypes, aggregateTypes);
  }

  /** The policies per event type, in the file's order. */
  Map<String, RetryPolicy> eventTypes() {
    return eventTypes;
  }

  /** The policies per aggregate type, in the file's order. */
  Map<String, RetryPolicy> aggregateTypes() {
    return aggregateTypes;
  }

  /** Gives {@code b} every policy of the file. */
  void apply(RelayConfig.Builder b) {
    eventTypes.forEach(b::retryPolicy);
    aggregateTypes.forEach(b::aggregateRetryPolicy);
  }

  /** One type's policy: the settings given, the others {@code defaults}'. */
  private static RetryPolicy policy(Map<Setting, String[]> settings, RetryPolicy defaults) {
    // A setting given is named by its key, one inherited by the flag that set the default.
    UnaryOperator<String> name =
        s -> {
          String[] kv = settings.get(Setting.of(s));
          return kv != null ? kv[0] : "--" + s;
        };
    int attempts = defaults.maxAttempts();
    String[] a = settings.get(Setting.MAX_ATTEMPTS);
    if (a != null) {
      try {
        attempts = Integer.parseInt(a[1]);
      } catch (NumberFormatException e) {
        attempts = 0;
      }
      if (attempts < 1 || attempts > RetryPolicy.MAX_ATTEMPTS_LIMIT || !a[1].matches("[0-9]+")) {
        throw new IllegalArgumentException(
            a[0]
                + " must be a whole number between 1 and "
                + RetryPolicy.MAX_ATTEMPTS_LIMIT
                + " but was '"
                + Printable.of(a[1])
                + "'");
      }
    }
    Backoff d = defaults.backoff();
    Backoff backoff =
        backoff(
            duration(settings.get(Setting.BACKOFF_INITIAL), d.initialDelay()),
            duration(settings.get(Setting.BACKOFF_MAX), d.maxDelay()),
            number(settings.get(Setting.BACKOFF_MULTIPLIER), d.multiplier()),
            number(settings.get(Setting.BACKOFF_JITTER), d.jitter()),
            name);
    RetryPolicy p = RetryPolicy.of(attempts, backoff);
    String[] age = settings.get(Setting.MAX_AGE);
    Duration maxAge =
        age == null
            ? defaults.maxAge()
            : age[1].equals(NO_MAX_AGE) ? null : duration(age, Duration.ZERO);
    if (maxAge != null && maxAge.isZero()) {
      throw new IllegalArgumentException(
          age[0] + " must be positive (or " + NO_MAX_AGE + ") but was 0ms");
    }
    return maxAge == null ? p : p.withMaxAge(maxAge);
  }

  private static Duration duration(String[] kv, Duration otherwise) {
    if (kv == null) {
      return otherwise;
    }
    try {
      return DurationText.parse(kv[1]);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(kv[0] + " " + e.getMessage(), e);
    }
  }

  private static double number(String[] kv, double otherwise) {
    if (kv == null) {
      return otherwise;
    }
    try {
      double x = Double.parseDouble(kv[1]);
      if (Double.isFinite(x)) {
        return x;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(
        kv[0] + " must be a number but was '" + Printable.of(kv[1]) + "'");
  }

  /**
   * The backoff of these values, each checked with an error naming the setting as {@code name}
   * calls it (a flag, or a key of the file).
   *
   * @throws IllegalArgumentException naming the setting and its limit
   */
  static Backoff backoff(
      Duration initial,
      Duration max,
      double multiplier,
      double jitter,
      UnaryOperator<String> name) {
    if (initial.isZero() || initial.isNegative()) {
      throw new IllegalArgumentException(
          name.apply("backoff-initial") + " must be positive but was " + DurationText.of(initial));
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException(
          name.apply("backoff-max")
              + " must be at least "
              + name.apply("backoff-initial")
              + " ("
              + DurationText.of(initial)
              + ") but was "
              + DurationText.of(max));
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException(
          name.apply("backoff-multiplier")
              + " must be at least 1 but was "
              + RetryPolicyText.number(multiplier));
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException(
          name.apply("backoff-jitter")
              + " must be between 0 and 1 but was "
              + RetryPolicyText.number(jitter));
    }
    return new Backoff(initial, max, multiplier, jitter);
  }
}
