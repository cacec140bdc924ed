package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Nothing outside outbox-core may use its {@code dev.txoutbox.internal} packages: they can change
 * in any release. Reads the sources of every other module of the reactor (the root pom's {@code
 * <module>} list, through relative paths from this module) and fails with each file and line that
 * names the package, in an import or anywhere else.
 */
class InternalPackagesStayInternalTest {

  private static final String INTERNAL = "dev.txoutbox.internal";
  private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");

  /** The reactor root: the parent of this module's directory, where the tests run. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void noOtherModuleNamesTheInternalPackages() throws IOException {
    List<String> modules = modules();
    assertThat(modules)
        .as("the reactor's modules, read from " + ROOT.resolve("pom.xml"))
        .contains("outbox-core", "outbox-cli", "publisher-kafka", "benchmarks");

    List<String> violations = new ArrayList<>();
    int files = 0;
    for (String module : modules) {
      Path sources = ROOT.resolve(module).resolve("src");
      if (module.equals("outbox-core") || !Files.isDirectory(sources)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(sources)) {
        for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
          files++;
          List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
          for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(INTERNAL)) {
              violations.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
          }
        }
      }
    }

    assertThat(files).as("Java files read outside outbox-core").isGreaterThan(50);
    assertThat(violations)
        .as(
            "only outbox-core may use %s; move what is needed to a public, documented type",
            INTERNAL)
        .isEmpty();
  }

  private static List<String> modules() {
    try {
      String pom = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
      List<String> modules = new ArrayList<>();
      Matcher m = MODULE.matcher(pom);
      while (m.find()) {
        modules.add(m.group(1));
      }
      return modules;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
