package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.GeneratedDocSection;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The option table of {@code docs/configuration.md} is made from {@link RelayOptions}, and every
 * value option of the builders has a definition there: a new option that is not defined, or defined
 * but not documented, fails here.
 *
 * <p>To rewrite the table after changing a definition, from the repository's root:
 *
 * <pre>{@code
 * mvn -B -o -q -pl outbox-core -am verify -Dtest=RelayOptionsDocTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dtxoutbox.writeDocs=true
 * }</pre>
 */
class RelayOptionsDocTest {

  static final String START =
      "<!-- relay options: made from RelayOptions, see RelayOptionsDocTest -->";
  static final String END = "<!-- end of relay options -->";

  private static final Path DOC =
      Path.of("").toAbsolutePath().getParent().resolve("docs/configuration.md");

  /** The builder methods that set no single value: objects, and the per-type policies (maps). */
  private static final Set<String> NOT_VALUE_OPTIONS =
      Set.of(
          "build",
          "retryPolicy",
          "aggregateRetryPolicy",
          "dataSource",
          "dsl",
          "publisher",
          "schema",
          "tablePrefix",
          "tables",
          "config",
          "clock",
          "listener",
          "metrics",
          "publishTracer",
          "threadFactory");

  @Test
  void theDocumentedTableIsTheOneTheDefinitionsMake() throws IOException {
    String made = table();
    assertThat(GeneratedDocSection.documented(DOC, START, END, made))
        .as(
            "the relay option table of "
                + DOC
                + "; rewrite it with -Dtxoutbox.writeDocs=true (see this test's Javadoc)")
        .isEqualTo(GeneratedDocSection.expected(made));
  }

  @Test
  void everyValueOptionOfTheBuildersIsDefined() {
    Set<String> defined =
        RelayOptions.all().stream().map(RelayOption::setter).collect(Collectors.toSet());
    Set<String> setters = new TreeSet<>(setters(RelayConfig.Builder.class));
    setters.addAll(setters(OutboxRelay.Builder.class));
    setters.removeAll(NOT_VALUE_OPTIONS);
    assertThat(defined).containsExactlyInAnyOrderElementsOf(setters);
  }

  @Test
  void everyKeyIsGivenOnce() {
    assertThat(
            RelayOptions.all().stream()
                .map(RelayOption::key)
                .filter(k -> k != null)
                .collect(Collectors.groupingBy(k -> k, Collectors.counting())))
        .allSatisfy((key, count) -> assertThat(count).as(key).isEqualTo(1L));
  }

  private static Set<String> setters(Class<?> builder) {
    return Arrays.stream(builder.getDeclaredMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.isSynthetic())
        .map(Method::getName)
        .collect(Collectors.toSet());
  }

  /** The table, one row per option, in {@link RelayOptions#all()}'s order. */
  static String table() {
    Set<String> relayBuilder = setters(OutboxRelay.Builder.class);
    return RelayOptionTable.markdown(
        RelayOptions.all(),
        o -> relayBuilder.contains(o.setter()) ? " (`OutboxRelay.builder()`)" : "");
  }
}
