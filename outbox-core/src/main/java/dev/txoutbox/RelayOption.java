package dev.txoutbox;

import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.SecretMasking;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One option of a relay, defined once: its name in the builder and in error messages, its key (the
 * command-line flag without its dashes, and the key in a settings file), its type, its default, its
 * bounds and a description. The builders check their values with {@link #check}, the command line
 * makes its flags and {@code --help} from it and checks the values it reads with the same rule in
 * its own words ({@link Spelling}), and the option table of {@code docs/configuration.md} is made
 * from it, so none of them can say something the others do not. {@link RelayOptions} holds the
 * options every relay shares; a relay module with options of its own declares them the same way,
 * with the public factories ({@link #integer}, {@link #positiveDuration}, {@link #text}, …), which
 * throw {@code IllegalArgumentException} if a name is not camel case ({@code batchSize}), a key not
 * lower case words joined by dashes ({@code batch-size}), or a description blank or ending with a
 * period. Immutable and thread-safe.
 *
 * @param <T> the type of the value: {@code Integer}, {@code Double}, {@code Duration}, {@code
 *     String}, {@code Boolean}, an enum, or {@code Backoff}
 */
public final class RelayOption<T> {

  /** How a value is written on the command line and in settings files. */
  public enum Type {
    /** Any text, within the option's bounds. */
    TEXT,
    /** A whole number. */
    INTEGER,
    /** A decimal number. */
    NUMBER,
    /** A duration ({@code 500ms}, {@code 30s}, {@code 5m}), as {@link DurationText} reads it. */
    DURATION,
    /** One word of {@link RelayOption#words()}, naming a constant of an enum. */
    CHOICE,
    /** On or off; as a flag, given without a value. */
    SWITCH,
    /** A {@link Backoff}, set in code as a whole (its parts are options of their own). */
    BACKOFF
  }

  /**
   * How an error names an option and writes a value: in the words of the builders ({@link #API}:
   * {@code maxPollInterval}, {@code PT0.3S}), or in those of a command line or settings file
   * ({@code --max-poll-interval}, {@code 300ms}), which implement it.
   */
  public interface Spelling {

    /** The builders' words: option names, and values as {@code toString()} writes them. */
    Spelling API =
        new Spelling() {
          @Override
          public String name(RelayOption<?> option) {
            return option.name();
          }

          @Override
          public String value(Object value) {
            return String.valueOf(value);
          }
        };

    /** How {@code option} is named. */
    String name(RelayOption<?> option);

    /** How {@code value} (a value of some option) is written. */
    String value(Object value);
  }

  /**
   * A rule a value must follow, for an option none of the factories fits ({@link #of}); {@code
   * other} is the value of the option it is compared with.
   *
   * @param <T> the type of the value
   */
  public interface Rule<T> {
    /** The error's words after the option's name, or null if {@code value} follows the rule. */
    @Nullable String violation(T value, @Nullable T other, Spelling s);

    /** The rule for people: {@code 1 to 10000}, {@code positive}; empty for none. */
    String describe(Spelling s);

    /**
     * What an error shows of {@code value} after "but was": null to write it as {@code s} does (a
     * text in quotes); a rule for values that may hold a secret shows less ({@code not (value
     * hidden)}).
     */
    default @Nullable String shown(T value, Spelling s) {
      return null;
    }
  }

  private static final Pattern NAME = Pattern.compile("[a-z][A-Za-z0-9]*");
  private static final Pattern KEY = Pattern.compile("[a-z][a-z0-9]*(?:-[a-z0-9]+)*");

  private final String name;
  private final String setter;
  private final @Nullable String key;
  private final Type type;
  private final String label;
  private final @Nullable T defaultValue;
  private final String description;
  private final Rule<T> rule;
  private final @Nullable RelayOption<T> comparedWith;
  private final Map<String, String> words;
  private final @Nullable String defaultWords;

  private RelayOption(
      String name,
      String setter,
      @Nullable String key,
      Type type,
      String label,
      @Nullable T defaultValue,
      String description,
      Rule<T> rule,
      @Nullable RelayOption<T> comparedWith,
      Map<String, String> words) {
    this(
        name, setter, key, type, label, defaultValue, description, rule, comparedWith, words, null);
  }

  private RelayOption(
      String name,
      String setter,
      @Nullable String key,
      Type type,
      String label,
      @Nullable T defaultValue,
      String description,
      Rule<T> rule,
      @Nullable RelayOption<T> comparedWith,
      Map<String, String> words,
      @Nullable String defaultWords) {
    this.name = requireMatch(NAME, name, "name");
    this.setter = requireMatch(NAME, setter, "setter");
    this.key = key == null ? null : requireMatch(KEY, key, "key");
    this.type = Objects.requireNonNull(type, "type");
    this.label = Objects.requireNonNull(label, "label");
    this.defaultValue = defaultValue;
    this.description = Objects.requireNonNull(description, "description");
    if (description.isBlank() || description.endsWith(".")) {
      throw new IllegalArgumentException(
          "the description of option "
              + name
              + " must be a phrase without a final period but was '"
              + description
              + "'");
    }
    this.rule = rule;
    this.comparedWith = comparedWith;
    this.words = words;
    this.defaultWords = defaultWords;
  }

  private static String requireMatch(Pattern pattern, String text, String what) {
    Objects.requireNonNull(text, what);
    if (!pattern.matcher(text).matches()) {
      throw new IllegalArgumentException(
          "an option's " + what + " must match " + pattern + " but was '" + text + "'");
    }
    return text;
  }

  // ------------------------------------------------------------------------------- definitions
  // Public, so that a relay module (outbox-wal) declares its own options the same way.

  /**
   * A whole number from {@code min} to {@code max}, set by the builder method {@code name}.
   *
   * @param key the flag without its dashes, or null when no tool sets it
   */
  public static RelayOption<Integer> integer(
      String name, @Nullable String key, int defaultValue, int min, int max, String description) {
    return new RelayOption<>(
        name,
        name,
        key,
        Type.INTEGER,
        "N",
        defaultValue,
        description,
        OptionRules.between(min, max),
        null,
        Map.of());
  }

  /**
   * A positive duration; with {@code atLeast}, at least that option's value instead.
   *
   * @param setter the builder method that sets it: {@code name}, or the whole it is part of
   * @param defaultValue null for "none"
   */
  public static RelayOption<Duration> positiveDuration(
      String name,
      String setter,
      @Nullable String key,
      @Nullable Duration defaultValue,
      @Nullable RelayOption<Duration> atLeast,
      String description) {
    return new RelayOption<>(
        name,
        setter,
        key,
        Type.DURATION,
        "DURATION",
        defaultValue,
        description,
        OptionRules.positiveOrAtLeast(atLeast),
        atLeast,
        Map.of());
  }

  /** A duration of zero or more. */
  public static RelayOption<Duration> duration(
      String name, @Nullable String key, Duration defaultValue, String description) {
    return new RelayOption<>(
        name,
        name,
        key,
        Type.DURATION,
        "DURATION",
        defaultValue,
        description,
        OptionRules.notNegative(),
        null,
        Map.of());
  }

  /** A finite number from {@code min} up to {@code max} (none when infinite). */
  public static RelayOption<Double> number(
      String name,
      String setter,
      @Nullable String key,
      double defaultValue,
      double min,
      double max,
      String description) {
    return new RelayOption<>(
        name,
        setter,
        key,
        Type.NUMBER,
        "X",
        defaultValue,
        description,
        OptionRules.between(min, max),
        null,
        Map.of());
  }

  /**
   * Text matching {@code pattern}, which {@code rule} says in words.
   *
   * @param defaultValue null for "none"
   */
  public static RelayOption<String> text(
      String name,
      @Nullable String key,
      String label,
      @Nullable String defaultValue,
      Pattern pattern,
      String rule,
      String description) {
    return new RelayOption<>(
        name,
        name,
        key,
        Type.TEXT,
        label,
        defaultValue,
        description,
        OptionRules.matching(pattern, rule),
        null,
        Map.of());
  }

  /** One constant of {@code type}, each written on the command line as {@code word} gives. */
  public static <E extends Enum<E>> RelayOption<E> choice(
      String name,
      @Nullable String key,
      Class<E> type,
      E defaultValue,
      Function<E, String> word,
      String description) {
    Map<String, String> words = new LinkedHashMap<>();
    for (E constant : type.getEnumConstants()) {
      words.put(constant.name(), word.apply(constant));
    }
    return new RelayOption<>(
        name,
        name,
        key,
        Type.CHOICE,
        "MODE",
        defaultValue,
        description,
        OptionRules.none(),
        null,
        Collections.unmodifiableMap(words));
  }

  /** A switch, off unless given. */
  public static RelayOption<Boolean> onOff(
      String name, String setter, String key, String description) {
    return onOff(name, setter, key, false, description);
  }

  /**
   * A switch, on or off unless set; one on by default is turned off by its flag {@code --no-<key>}
   * ({@link #flag()}).
   */
  public static RelayOption<Boolean> onOff(
      String name, String setter, @Nullable String key, boolean on, String description) {
    return new RelayOption<>(
        name, setter, key, Type.SWITCH, "", on, description, OptionRules.none(), null, Map.of());
  }

  /** A backoff, set as a whole in code; no flag. */
  public static RelayOption<Backoff> backoff(
      String name, Backoff defaultValue, String description) {
    return new RelayOption<>(
        name,
        name,
        null,
        Type.BACKOFF,
        "",
        defaultValue,
        description,
        OptionRules.none(),
        null,
        Map.of());
  }

  /**
   * An option whose value follows {@code rule}, for one that none of the factories above fits (a
   * duration with a bound of its own, a reference to a secret).
   *
   * @param setter the builder method that sets it: {@code name}, or the whole it is part of
   * @param type how the value is written; not {@link Type#CHOICE} nor {@link Type#BACKOFF}, which
   *     have factories of their own
   * @param defaultValue null for "none"
   * @param comparedWith the option whose value {@code rule} is given as {@code other}, or null
   * @throws IllegalArgumentException if {@code type} is {@link Type#CHOICE} or {@link Type#BACKOFF}
   */
  public static <T> RelayOption<T> of(
      String name,
      String setter,
      @Nullable String key,
      Type type,
      String label,
      @Nullable T defaultValue,
      @Nullable RelayOption<T> comparedWith,
      Rule<T> rule,
      String description) {
    if (type == Type.CHOICE || type == Type.BACKOFF) {
      throw new IllegalArgumentException(
          "option " + name + " must be made by its type's own factory but was of type " + type);
    }
    return new RelayOption<>(
        name,
        setter,
        key,
        type,
        label,
        defaultValue,
        description,
        Objects.requireNonNull(rule, "rule"),
        comparedWith,
        Map.of());
  }

  /**
   * This option, its default (none: computed when no value is given) said in {@code words} ({@code
   * a third of leaseTtl}) wherever the default is shown.
   *
   * @throws IllegalStateException if the option has a default value
   */
  public RelayOption<T> withDefaultText(String words) {
    Objects.requireNonNull(words, "words");
    if (defaultValue != null) {
      throw new IllegalStateException(
          "option " + name + " must have no default value to say its default in words but has");
    }
    return new RelayOption<>(
        name, setter, key, type, label, null, description, rule, comparedWith, this.words, words);
  }

  // ---------------------------------------------------------------------------------- accessors

  /** The name errors give it in the builders' words, such as {@code batchSize}. */
  public String name() {
    return name;
  }

  /**
   * The builder method that sets it: its {@link #name()}, or for a part of a whole the whole's
   * ({@code backoff} for {@code initialDelay}).
   */
  public String setter() {
    return setter;
  }

  /**
   * The command line's flag without its dashes and a settings file's key, lower case words joined
   * by dashes ({@code batch-size}); null when no tool sets it.
   */
  public @Nullable String key() {
    return key;
  }

  /**
   * The command line's flag: {@code --<key>}, or {@code --no-<key>} for a {@link Type#SWITCH} on by
   * default, which the flag turns off; null when no tool sets it.
   */
  public @Nullable String flag() {
    if (key == null) {
      return null;
    }
    return (type == Type.SWITCH && Boolean.TRUE.equals(defaultValue) ? "--no-" : "--") + key;
  }

  /** How the value is written. */
  public Type type() {
    return type;
  }

  /** The placeholder {@code --help} shows for the value ({@code N}, {@code DURATION}). */
  public String label() {
    return label;
  }

  /** The value used when none is given; null when the default is "none". */
  public @Nullable T defaultValue() {
    return defaultValue;
  }

  /** What it means, as a phrase without a final period. */
  public String description() {
    return description;
  }

  /** The option whose value this one must be at least, or null. */
  public @Nullable RelayOption<T> comparedWith() {
    return comparedWith;
  }

  /**
   * For a {@link Type#CHOICE}: each constant's name and the word that names it on the command line
   * ({@code MARK_PROCESSED} to {@code mark}), in declaration order; empty otherwise.
   */
  public Map<String, String> words() {
    return words;
  }

  /** The bounds of a value for people, in {@code s}'s words: {@code 1 to 10000}; empty if none. */
  public String bounds(Spelling s) {
    return rule.describe(s);
  }

  /**
   * The default for people, as the command line writes values: {@code 25ms}, {@code 0.2}, {@code
   * mark}, {@code none}, or the words of {@link #withDefaultText}.
   */
  public String defaultText() {
    return defaultValue == null && defaultWords != null ? defaultWords : describe(defaultValue);
  }

  /** {@code value} of this option as the command line writes it. */
  public String describe(@Nullable Object value) {
    if (value == null) {
      return "none";
    }
    if (value instanceof Duration d) {
      return DurationText.of(d);
    }
    if (value instanceof Double x) {
      return plain(x);
    }
    if (value instanceof Enum<?> e) {
      return words.getOrDefault(e.name(), e.name());
    }
    if (value instanceof Backoff b) {
      return DurationText.of(b.initialDelay())
          + " to "
          + DurationText.of(b.maxDelay())
          + " x"
          + plain(b.multiplier())
          + " jitter "
          + plain(b.jitter());
    }
    return String.valueOf(value);
  }

  // ---------------------------------------------------------------------------------- checking

  /**
   * {@code value}, checked in the builders' words.
   *
   * @throws NullPointerException naming the option if {@code value} is null
   * @throws IllegalArgumentException naming the option and its bounds if {@code value} is out of
   *     them ("batchSize must be between 1 and 10000 but was 0")
   */
  public T check(@Nullable T value) {
    return check(value, null, Spelling.API);
  }

  /**
   * {@code value}, checked against {@code other}, the value of {@link #comparedWith()}, in the
   * builders' words.
   *
   * @throws NullPointerException naming the option if {@code value} is null
   * @throws IllegalArgumentException naming both options if {@code value} is out of bounds
   */
  public T check(@Nullable T value, @Nullable T other) {
    return check(value, other, Spelling.API);
  }

  /**
   * {@code value}, checked against {@code other} (the value of {@link #comparedWith()}, or null),
   * the error in {@code s}'s words ("--batch-size must be between 1 and 10000 but was 0"). A text
   * value is shown with its credentials masked and its control characters escaped.
   *
   * @throws NullPointerException naming the option if {@code value} is null
   * @throws IllegalArgumentException naming the option and its bounds if {@code value} is out of
   *     them
   */
  public T check(@Nullable T value, @Nullable T other, Spelling s) {
    if (value == null) {
      throw new NullPointerException(name);
    }
    String violation = rule.violation(value, other, s);
    if (violation != null) {
      String shown = rule.shown(value, s);
      if (shown == null) {
        shown =
            type == Type.TEXT
                ? "'" + Printable.of(SecretMasking.maskUri(s.value(value))) + "'"
                : s.value(value);
      }
      throw new IllegalArgumentException(s.name(this) + " " + violation + " but was " + shown);
    }
    return value;
  }

  /** {@code x} without a needless fraction: {@code 2}, {@code 1.5}, {@code 0.2}. */
  static String plain(double x) {
    return Double.isFinite(x)
        ? BigDecimal.valueOf(x).stripTrailingZeros().toPlainString()
        : String.valueOf(x);
  }

  @Override
  public String toString() {
    return "RelayOption[" + name + (key == null ? "" : ", --" + key) + "]";
  }
}
