package dev.txoutbox.cli;

import dev.txoutbox.RelayOption;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The command line's flags of {@link RelayOption}s: each flag, its value's type and its {@code
 * --help} line are made from the option's definition, and a value is checked with the definition's
 * rule in the words of the flags ({@link #FLAGS}). Stateless.
 */
final class OptionFlags {

  /** The flags' words: {@code --max-poll-interval}, {@code 300ms}, {@code 0.5}. */
  static final RelayOption.Spelling FLAGS = named(Map.of());

  private OptionFlags() {}

  /**
   * The flags' words, except that the options of {@code names} are named as it says (a key of a
   * settings file that gave the value).
   */
  static RelayOption.Spelling named(Map<RelayOption<?>, String> names) {
    return new RelayOption.Spelling() {
      @Override
      public String name(RelayOption<?> option) {
        String name = names.get(option);
        return name != null ? name : flag(option);
      }

      @Override
      public String value(Object value) {
        if (value instanceof Duration d) {
          return Durations.format(d);
        }
        if (value instanceof Double x) {
          return RetryPolicyText.number(x);
        }
        return String.valueOf(value);
      }
    };
  }

  /** How the flag of {@code option}, a {@link RelayOption.Type#CHOICE}, reads its words. */
  static <E extends Enum<E>> EnumFlag<E> enumFlag(RelayOption<E> option, Class<E> type) {
    return EnumFlag.of(flag(option), type, e -> option.words().get(e.name()));
  }

  /**
   * The flag of {@code option}: {@code --batch-size}, or {@code --no-create-slot} for a switch on
   * by default ({@link RelayOption#flag()}).
   */
  static String flag(RelayOption<?> option) {
    String flag = option.flag();
    if (flag == null) {
      throw new IllegalArgumentException(
          "option " + option.name() + " must have a key to be a flag but has none");
    }
    return flag;
  }

  /** The flag of {@code option}, its {@code --help} line followed by {@code note} (or nothing). */
  static OptionSpec option(RelayOption<?> option, @Nullable String note) {
    return withHelp(option, help(option, note));
  }

  /**
   * The flag of {@code option}, which has no default: its {@code --help} line says it is required
   * (the builder refuses its absence in the flag's words).
   */
  static OptionSpec required(RelayOption<?> option) {
    return withHelp(option, meaning(option) + " Required.");
  }

  private static OptionSpec withHelp(RelayOption<?> option, String help) {
    OptionSpec.Builder b =
        OptionSpec.builder(flag(option)).description(help).paramLabel(option.label());
    return switch (option.type()) {
      case INTEGER -> b.type(Integer.class).build();
      case NUMBER -> b.type(Double.class).build();
      case DURATION -> b.type(Duration.class).converters(new Durations()).build();
      case TEXT, CHOICE -> b.type(String.class).build();
      case SWITCH -> b.type(boolean.class).arity("0").build();
      case BACKOFF ->
          throw new IllegalArgumentException(
              "option " + option.name() + " is set in code as a whole and has no flag");
    };
  }

  /**
   * {@code option}'s {@code --help} line: its description, its bounds, {@code note}, its default
   * ("Events claimed and published per cycle: 1 to 10000. Default: 100.").
   */
  static String help(RelayOption<?> option, @Nullable String note) {
    boolean onByDefault = isOnByDefault(option);
    String shownDefault =
        option.type() == RelayOption.Type.SWITCH
            ? (onByDefault ? "on" : "off")
            : option.defaultText();
    return meaning(option)
        + (onByDefault ? " This flag turns it off." : "")
        + (note == null ? "" : " " + note)
        + " Default: "
        + shownDefault
        + ".";
  }

  /**
   * {@code option}'s description and bounds as a sentence ("Events claimed and published per cycle:
   * 1 to 10000.").
   */
  static String meaning(RelayOption<?> option) {
    String d = option.description();
    String bounds = option.bounds(FLAGS);
    return d.substring(0, 1).toUpperCase(Locale.ROOT)
        + d.substring(1)
        + (bounds.isEmpty() ? "" : ": " + bounds)
        + ".";
  }

  /** A group of {@code options} under {@code heading} in {@code --help}, at {@code order}. */
  static void addGroup(CommandSpec spec, String heading, int order, List<OptionSpec> options) {
    ArgGroupSpec.Builder group =
        ArgGroupSpec.builder().heading(heading).order(order).exclusive(false).validate(false);
    options.forEach(group::addArg);
    spec.addArgGroup(group.build());
  }

  /**
   * The value given for {@code option}, or null if its flag was not given (false if the flag of a
   * switch on by default was given); a {@link RelayOption.Type#CHOICE}'s word is read with {@link
   * EnumFlag}.
   */
  @SuppressWarnings("unchecked")
  static <T> @Nullable T given(ParseResult parsed, RelayOption<T> option) {
    if (option.type() == RelayOption.Type.CHOICE) {
      throw new IllegalArgumentException(
          "option " + option.name() + " names a constant: read its word with an EnumFlag");
    }
    OptionSpec matched = parsed.matchedOption(flag(option));
    if (matched == null) {
      return null;
    }
    return isOnByDefault(option) ? (T) Boolean.FALSE : (T) matched.getValue();
  }

  /** Whether {@code option} is a switch on by default, whose flag turns it off. */
  private static boolean isOnByDefault(RelayOption<?> option) {
    return option.type() == RelayOption.Type.SWITCH && Boolean.TRUE.equals(option.defaultValue());
  }

  /** The value given for {@code option}, or its default. */
  static <T> @Nullable T valueOrDefault(ParseResult parsed, @Nullable RelayOption<T> option) {
    if (option == null) {
      return null;
    }
    T given = given(parsed, option);
    return given != null ? given : option.defaultValue();
  }

  /**
   * Checks the value of {@code option} (given, or its default) against the option it is compared
   * with, in {@code s}'s words.
   *
   * @throws IllegalArgumentException naming the flag and its bounds
   */
  static <T> void check(ParseResult parsed, RelayOption<T> option, RelayOption.Spelling s) {
    if (option.type() == RelayOption.Type.CHOICE) {
      return; // any constant its EnumFlag reads is valid
    }
    T value = valueOrDefault(parsed, option);
    if (value != null) {
      option.check(value, valueOrDefault(parsed, option.comparedWith()), s);
    }
  }
}
