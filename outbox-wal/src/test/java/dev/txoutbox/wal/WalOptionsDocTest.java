package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.RelayOption;
import dev.txoutbox.RelayOptionTable;
import dev.txoutbox.RelayOptions;
import dev.txoutbox.testing.GeneratedDocSection;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The option table of {@code outbox-wal/README.md} is made from {@link WalOptions}, and every value
 * option of {@link WalRelayBuilder} has a definition there: a new option that is not defined, or
 * defined but not documented, fails here.
 *
 * <p>To rewrite the table after changing a definition, from the repository's root:
 *
 * <pre>{@code
 * mvn -B -o -q -pl outbox-wal -am verify -Dtest=WalOptionsDocTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dtxoutbox.writeDocs=true
 * }</pre>
 */
class WalOptionsDocTest {

  static final String START = "<!-- WAL options: made from WalOptions, see WalOptionsDocTest -->";
  static final String END = "<!-- end of WAL options -->";

  private static final Path DOC = Path.of("").toAbsolutePath().resolve("README.md");

  /** The builder methods that set no single value: objects, and the relay's shared options. */
  private static final Set<String> NOT_VALUE_OPTIONS =
      Set.of(
          "build",
          "dataSource",
          "publisher",
          "schema",
          "tables",
          "config",
          "clock",
          "listener",
          "metrics",
          "publishTracer",
          "threadFactory");

  @Test
  void theDocumentedTableIsTheOneTheDefinitionsMake() throws IOException {
    String made = RelayOptionTable.markdown(WalOptions.all(), o -> "");
    assertThat(GeneratedDocSection.documented(DOC, START, END, made))
        .as("the WAL option table of " + DOC + "; rewrite it as this test's Javadoc says")
        .isEqualTo(GeneratedDocSection.expected(made));
  }

  @Test
  void everyPublicValueOptionOfTheBuilderIsDefined() {
    Set<String> setters =
        Arrays.stream(WalRelayBuilder.class.getDeclaredMethods())
            .filter(m -> Modifier.isPublic(m.getModifiers()) && !m.isSynthetic())
            .map(Method::getName)
            .collect(Collectors.toCollection(TreeSet::new));
    setters.removeAll(NOT_VALUE_OPTIONS);
    assertThat(WalOptions.all().stream().map(RelayOption::setter))
        .containsExactlyInAnyOrderElementsOf(setters);
  }

  @Test
  void everyFlagIsGivenOnceBesideTheSharedOnes() {
    // The command line's relay takes both: no WAL flag may be a shared option's.
    List<String> flags = new ArrayList<>();
    Stream.concat(RelayOptions.all().stream(), WalOptions.all().stream())
        .map(RelayOption::flag)
        .filter(Objects::nonNull)
        .forEach(flags::add);
    assertThat(flags).doesNotHaveDuplicates();
  }
}
