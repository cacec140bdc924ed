package dev.txoutbox.cli;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A flag whose value names one constant of an enum: how every such flag of the command line is read
 * and written back. Each constant has one word on the command line ({@code per-aggregate}, {@code
 * mark}); the word or the constant's own name is accepted, in any case, with {@code -} and {@code
 * _} alike. Anything else is refused with a message listing the words. Immutable.
 *
 * @param <E> the enum
 */
final class EnumFlag<E extends Enum<E>> {

  private final String flag;
  private final Map<E, String> words;
  private final Map<String, E> accepted = new LinkedHashMap<>();

  private EnumFlag(String flag, Class<E> type, Function<E, String> word) {
    this.flag = flag;
    this.words = new EnumMap<>(type);
    for (E constant : type.getEnumConstants()) {
      String w = word.apply(constant);
      words.put(constant, w);
      accepted.put(normalised(w), constant);
    }
    for (E constant : type.getEnumConstants()) {
      accepted.putIfAbsent(normalised(constant.name()), constant);
    }
  }

  /** {@code flag}, whose words are the constants' names in lower case with dashes. */
  static <E extends Enum<E>> EnumFlag<E> of(String flag, Class<E> type) {
    return new EnumFlag<>(flag, type, EnumFlag::dashed);
  }

  /** {@code flag}, whose words {@code word} gives. */
  static <E extends Enum<E>> EnumFlag<E> of(String flag, Class<E> type, Function<E, String> word) {
    return new EnumFlag<>(flag, type, word);
  }

  /**
   * The constant {@code value} names.
   *
   * @throws IllegalArgumentException naming the flag and listing its words if none matches
   */
  E parse(String value) {
    E constant = value == null ? null : accepted.get(normalised(value));
    if (constant == null) {
      throw new IllegalArgumentException(
          flag
              + " must be one of "
              + String.join(", ", words.values())
              + " but was '"
              + value
              + "'");
    }
    return constant;
  }

  /** The word of {@code constant} on the command line. */
  String word(E constant) {
    return words.get(constant);
  }

  private static String dashed(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static String normalised(String text) {
    return text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
