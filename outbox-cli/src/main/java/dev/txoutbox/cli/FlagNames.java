package dev.txoutbox.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rewrites an error message of an API whose options are not yet defined as {@code RelayOption}s
 * (the table names', the console's, a publisher's) in the words of the command line: option names
 * become the flags that set them, and durations read as the flags take them ({@code 300ms}, not
 * {@code PT0.3S}). The relay options every relay shares and the WAL relay's own never come here:
 * their flags check values with the options' own definitions ({@link OptionFlags}). Stateless.
 */
final class FlagNames {

  private static final Pattern WORD = Pattern.compile("\\b[A-Za-z][A-Za-z0-9]*\\b");

  private FlagNames() {}

  /** The error for a file flag whose file cannot be read; says why, not what the file holds. */
  static IllegalArgumentException unreadable(String flag, Path file, IOException e) {
    return new IllegalArgumentException(
        flag
            + " must name a readable file but "
            + file
            + " could not be read ("
            + e.getClass().getSimpleName()
            + ")");
  }

  /**
   * {@code message} (a publisher's) with each option named after one of {@code settings} replaced
   * by that setting's flag: a camel-case name ({@code sendTimeout}) by its kebab-case flag ({@code
   * --send-timeout}) wherever it appears, the setting's own name ({@code exchange}) only as the
   * message's first word; names that match no setting stay as they are.
   */
  static String ofSettings(String message, Collection<String> settings) {
    Map<String, String> flags = new HashMap<>();
    for (String setting : settings) {
      flags.put(camelCase(setting), "--" + setting);
    }
    return of(message, flags);
  }

  /** {@code send-timeout} as {@code sendTimeout}. */
  static String camelCase(String kebabCase) {
    StringBuilder out = new StringBuilder(kebabCase.length());
    boolean upper = false;
    for (char c : kebabCase.toCharArray()) {
      if (c == '-') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return out.toString();
  }

  /**
   * {@code message} with each option named in {@code flags} (API name to flag) replaced by its
   * flag: a camel-case name wherever it appears, a plain word ({@code uri}, {@code workers}) only
   * as the message's first word, where it names the option rather than the thing.
   */
  static String of(String message, Map<String, String> flags) {
    Matcher word = WORD.matcher(message);
    StringBuilder out = new StringBuilder(message.length() + 16);
    while (word.find()) {
      String name = word.group();
      String flag = flags.get(name);
      boolean camelCase = !name.equals(name.toLowerCase(Locale.ROOT));
      boolean replace = flag != null && (camelCase || word.start() == 0);
      word.appendReplacement(out, Matcher.quoteReplacement(replace ? flag : name));
    }
    word.appendTail(out);
    return Durations.inText(out.toString());
  }
}
