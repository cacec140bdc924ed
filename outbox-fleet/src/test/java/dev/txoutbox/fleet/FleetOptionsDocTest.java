package dev.txoutbox.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptionTable;
import dev.txoutbox.testing.GeneratedDocSection;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
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
    String made = RelayOptionTable.markdown(options, o -> "");
    assertThat(GeneratedDocSection.documented(DOC, start, end, made))
        .as(
            "the "
                + table
                + " of "
                + DOC
                + "; rewrite it with -Dtxoutbox.writeDocs=true (see this test's Javadoc)")
        .isEqualTo(GeneratedDocSection.expected(made));
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
}
