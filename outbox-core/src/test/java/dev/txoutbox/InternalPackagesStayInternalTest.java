package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Nothing outside outbox-core may use its {@code dev.txoutbox.internal} packages, since they can
 * change in any release, except where outbox-core's {@code module-info.java} exports a package to
 * that module by a qualified export ({@code exports dev.txoutbox.internal.json to
 * dev.txoutbox.wal;}): a module released in lockstep with core. Reads the sources of every other
 * module of the reactor (the root pom's {@code <module>} list, through relative paths from this
 * module), each module's name from its own {@code module-info.java}, and fails with each file and
 * line that names an internal package it is not given, in an import or anywhere else.
 */
class InternalPackagesStayInternalTest {

  private static final String INTERNAL = "dev.txoutbox.internal";
  private static final Pattern MODULE = Pattern.compile("<module>\\s*([^<\\s]+)\\s*</module>");
  private static final Pattern QUALIFIED_EXPORT =
      Pattern.compile(
          "exports\\s+(" + Pattern.quote(INTERNAL) + "[\\w.]*)\\s+to\\s+([\\w.,\\s]+);");
  private static final Pattern MODULE_NAME =
      Pattern.compile("(?m)^\\s*(?:open\\s+)?module\\s+([\\w.]+)\\s*\\{");
  private static final Pattern NAMED = Pattern.compile(Pattern.quote(INTERNAL) + "(\\.[a-z]\\w*)*");

  /** The reactor root: the parent of this module's directory, where the tests run. */
  private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

  @Test
  void noOtherModuleNamesTheInternalPackagesItIsNotExportedTo() throws IOException {
    List<String> modules = modules();
    assertThat(modules)
        .as("the reactor's modules, read from " + ROOT.resolve("pom.xml"))
        .contains("outbox-core", "outbox-cli", "publisher-kafka", "benchmarks", "outbox-wal");
    Map<String, Set<String>> exports =
        qualifiedExports(read(ROOT.resolve("outbox-core/src/main/java/module-info.java")));
    // What core's module-info says today; a new qualified export is a decision to review here.
    assertThat(exports)
        .isEqualTo(Map.of("dev.txoutbox.internal.kernel", Set.of("dev.txoutbox.wal")));

    List<String> violations = new ArrayList<>();
    int files = 0;
    for (String module : modules) {
      Path sources = ROOT.resolve(module).resolve("src");
      if (module.equals("outbox-core") || !Files.isDirectory(sources)) {
        continue;
      }
      Path info = sources.resolve("main/java/module-info.java");
      String name = Files.exists(info) ? moduleName(read(info)) : null;
      try (Stream<Path> walk = Files.walk(sources)) {
        for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
          files++;
          for (String v : violations(exports, name, Files.readAllLines(file))) {
            violations.add(ROOT.relativize(file) + ":" + v);
          }
        }
      }
    }

    assertThat(files).as("Java files read outside outbox-core").isGreaterThan(50);
    assertThat(violations)
        .as(
            "only outbox-core may use %s, and the modules it exports a package to by name; move"
                + " what is needed to a public, documented type",
            INTERNAL)
        .isEmpty();
  }

  @Test
  void theRuleItselfAllowsOnlyWhatIsExportedToTheModule() {
    Map<String, Set<String>> exports =
        qualifiedExports(
            "module m {\n  exports dev.txoutbox;\n  exports dev.txoutbox.internal.json to\n"
                + "      dev.txoutbox.wal, dev.txoutbox.other;\n}");
    assertThat(exports)
        .isEqualTo(
            Map.of("dev.txoutbox.internal.json", Set.of("dev.txoutbox.wal", "dev.txoutbox.other")));
    List<String> lines =
        List.of(
            "import dev.txoutbox.internal.json.Json;",
            "x = dev.txoutbox.internal.relay.ErrorText.sanitize(y);",
            "// see dev.txoutbox.internal");
    assertThat(violations(exports, "dev.txoutbox.wal", lines))
        .containsExactly(
            "2: x = dev.txoutbox.internal.relay.ErrorText.sanitize(y);",
            "3: // see dev.txoutbox.internal");
    assertThat(violations(exports, "dev.txoutbox.cli", lines)).hasSize(3);
    assertThat(violations(exports, null, lines)).hasSize(3);
    assertThat(moduleName("/** Doc: a module of ours. */\n@Deprecated\nmodule dev.txoutbox.wal {}"))
        .isEqualTo("dev.txoutbox.wal");
  }

  /** Each line of {@code lines} naming an internal package not exported to {@code module}. */
  private static List<String> violations(
      Map<String, Set<String>> exports, @Nullable String module, List<String> lines) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = NAMED.matcher(lines.get(i));
      while (m.find()) {
        Set<String> to = exports.getOrDefault(m.group(), Set.of());
        if (module == null || !to.contains(module)) {
          out.add((i + 1) + ": " + lines.get(i).strip());
          break;
        }
      }
    }
    return out;
  }

  /** The internal packages a {@code module-info.java} exports by name, and to which modules. */
  private static Map<String, Set<String>> qualifiedExports(String moduleInfo) {
    Map<String, Set<String>> out = new TreeMap<>();
    Matcher m = QUALIFIED_EXPORT.matcher(moduleInfo);
    while (m.find()) {
      Set<String> to = new TreeSet<>();
      for (String name : m.group(2).split(",")) {
        to.add(name.strip());
      }
      out.put(m.group(1), to);
    }
    return out;
  }

  private static @Nullable String moduleName(String moduleInfo) {
    Matcher m = MODULE_NAME.matcher(moduleInfo);
    return m.find() ? m.group(1) : null;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> modules() {
    String pom = read(ROOT.resolve("pom.xml"));
    List<String> modules = new ArrayList<>();
    Matcher m = MODULE.matcher(pom);
    while (m.find()) {
      modules.add(m.group(1));
    }
    return modules;
  }
}
