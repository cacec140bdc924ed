package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.RelayOption;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The two option tables of outbox-fleet's README are made from {@link FleetOptions}, and every
 * value option of {@link FleetNode.Builder} and {@link FleetOutbox.Builder} has a definition there:
 * a new option that is not defined, or defined but not documented, fails here.
 *
 * <p>To rewrite the tables after changing a definition, from the repository's root:
 *
 * <pre>{@code
 * mvn -B -o -q -pl outbox-fleet -am verify -Dtest=FleetOptionsDocTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dtxoutbox.writeDocs=true
 * }</pre>
 */
class FleetOptionsDocTest {

  private static final Path DOC = Path.of("README.md").toAbsolutePath();

  /** The node's builder methods that set no single value: objects, and the control schema. */
  private static final Set<String> NODE_NOT_VALUE_OPTIONS =
      Set.of(
          "build",
          "controlDataSource",
          "controlSchema",
          "listenForChanges",
          "publishers",
          "relayConfig",
          "metrics",
          "environment");

  /** The entry's builder methods that set no single value: the publisher's settings (a map). */
  private static final Set<String> ENTRY_NOT_VALUE_OPTIONS =
      Set.of("build", "publisherSetting", "publisherSettings");

  @Test
  void theDocumentedTablesAreTheOnesTheDefinitionsMake() throws IOException {
    check("fleet node options", FleetOptions.node());
    check("fleet entry fields", FleetOptions.entry());
  }

  @Test
  void everyValueOptionOfTheBuildersIsDefined() {
    assertThat(setters(FleetOptions.node()))
        .containsExactlyInAnyOrderElementsOf(
            setters(FleetNode.Builder.class, NODE_NOT_VALUE_OPTIONS));
    Set<String> entry = setters(FleetOutbox.Builder.class, ENTRY_NOT_VALUE_OPTIONS);
    entry.add("name"); // given to FleetOutbox.builder(name)
    assertThat(setters(FleetOptions.entry())).containsExactlyInAnyOrderElementsOf(entry);
  }

  @Test
  void everyKeyIsGivenOnce() {
    assertThat(
            Stream.concat(FleetOptions.node().stream(), FleetOptions.entry().stream())
                .map(RelayOption::key)
                .filter(k -> k != null)
                .collect(Collectors.groupingBy(k -> k, Collectors.counting())))
        .allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(1L));
  }

  private static void check(String table, List<RelayOption<?>> options) throws IOException {
    String start = "<!-- " + table + ": made from FleetOptions, see FleetOptionsDocTest -->";
    String end = "<!-- end of " + table + " -->";
    String doc = Files.readString(DOC, StandardCharsets.UTF_8);
    int from = doc.indexOf(start);
    int to = doc.indexOf(end);
    assertThat(from).as("the start marker of the " + table + " in " + DOC).isNotNegative();
    assertThat(to).as("the end marker of the " + table + " in " + DOC).isGreaterThan(from);
    String documented = doc.substring(from + start.length(), to);
    String made = "\n" + table(options) + "\n";
    if (Boolean.getBoolean("txoutbox.writeDocs")) {
      Files.writeString(DOC, doc.substring(0, from + start.length()) + made + doc.substring(to));
      documented = made;
    }
    assertThat(documented)
        .as(
            "the "
                + table
                + " of "
                + DOC
                + "; rewrite it with -Dtxoutbox.writeDocs=true (see this test's Javadoc)")
        .isEqualTo(made);
  }

  private static Set<String> setters(List<RelayOption<?>> options) {
    return options.stream().map(RelayOption::setter).collect(Collectors.toSet());
  }

  private static Set<String> setters(Class<?> builder, Set<String> notValueOptions) {
    Set<String> setters =
        Arrays.stream(builder.getDeclaredMethods())
            .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.isSynthetic())
            .map(Method::getName)
            .collect(Collectors.toCollection(TreeSet::new));
    setters.removeAll(notValueOptions);
    return setters;
  }

  /** The table of {@code options}, one row each, in their order. */
  private static String table(List<RelayOption<?>> options) {
    StringBuilder out =
        new StringBuilder(
            "| option | CLI flag | meaning | bounds | default |\n|---|---|---|---|---|\n");
    for (RelayOption<?> o : options) {
      String option =
          o.setter().equals(o.name())
              ? "`" + o.name() + "`"
              : "`" + o.setter() + "`: `" + o.name() + "`";
      out.append("| ")
          .append(option)
          .append(" | ")
          .append(o.key() == null ? "" : "`--" + o.key() + "`")
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
      return o.words().values().stream().map(w -> "`" + w + "`").collect(Collectors.joining(", "));
    }
    return o.bounds(RelayOption.Spelling.API);
  }

  private static String defaultOf(RelayOption<?> o) {
    if (o.type() == RelayOption.Type.SWITCH) {
      return Boolean.TRUE.equals(o.defaultValue()) ? "on" : "off";
    }
    String text = o.defaultText();
    return o.defaultValue() == null ? text : "`" + text + "`";
  }
}
