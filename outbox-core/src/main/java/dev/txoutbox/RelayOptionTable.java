package dev.txoutbox;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The documentation's table of {@link RelayOption}s, made from their definitions: one row per
 * option with its builder method, its flag, its meaning, its bounds and its default, so that the
 * documentation says what the definitions say. {@code docs/configuration.md} has the table of
 * {@link RelayOptions}, {@code outbox-wal/README.md} that of the WAL relay's own options; a test
 * beside each compares the document with the table made here. Thread-safe: stateless.
 */
public final class RelayOptionTable {

  private RelayOptionTable() {}

  /**
   * The Markdown table of {@code options}, in their order: {@code | option | CLI flag | meaning |
   * bounds | default |}; {@code note} gives what follows an option's name in its first cell ({@code
   * " (`OutboxRelay.builder()`)"}, or empty).
   */
  public static String markdown(
      List<? extends RelayOption<?>> options, Function<RelayOption<?>, String> note) {
    StringBuilder out =
        new StringBuilder(
            "| option | CLI flag | meaning | bounds | default |\n|---|---|---|---|---|\n");
    for (RelayOption<?> o : options) {
      String flag = o.flag();
      out.append("| ")
          .append(
              o.setter().equals(o.name())
                  ? "`" + o.name() + "`"
                  : "`" + o.setter() + "`: `" + o.name() + "`")
          .append(note.apply(o))
          .append(" | ")
          .append(flag == null ? "" : "`" + flag + "`")
          .append(" | ")
          .append(o.description())
          .append(" | ")
          .append(bounds(o))
          .append(" | ")
          .append(defaultOf(o))
          .append(" |\n");
    }
    return out.toString().strip();
  }

  private static String bounds(RelayOption<?> o) {
    if (o.type() == RelayOption.Type.CHOICE) {
      return o.words().entrySet().stream()
          .map(RelayOptionTable::choice)
          .collect(Collectors.joining(", "));
    }
    return o.bounds(RelayOption.Spelling.API);
  }

  private static String defaultOf(RelayOption<?> o) {
    Object d = o.defaultValue();
    if (o.type() == RelayOption.Type.CHOICE && d instanceof Enum<?> e) {
      return choice(Map.entry(e.name(), o.words().getOrDefault(e.name(), e.name())));
    }
    if (o.type() == RelayOption.Type.SWITCH) {
      return Boolean.TRUE.equals(d) ? "on" : "off";
    }
    return o.defaultText().equals("none") ? "none" : "`" + o.defaultText() + "`";
  }

  private static String choice(Map.Entry<String, String> constantAndWord) {
    return "`" + constantAndWord.getKey() + "` (`" + constantAndWord.getValue() + "`)";
  }
}
