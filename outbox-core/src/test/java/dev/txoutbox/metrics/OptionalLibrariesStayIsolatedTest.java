package dev.txoutbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.tracing.OpenTelemetryHeadersProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Micrometer and OpenTelemetry are optional dependencies of the core: only their own package may
 * refer to them (or to that package), so an application without them never loads a class that needs
 * them.
 */
class OptionalLibrariesStayIsolatedTest {

  private static List<Path> coreClasses() throws URISyntaxException, IOException {
    Path root =
        Path.of(OutboxMetrics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(p -> p.toString().endsWith(".class")).map(root::relativize).toList();
    }
  }

  /** Class files whose constant pool names {@code reference}, outside {@code allowedPackage}. */
  private static List<String> referencing(String reference, String allowedPackage)
      throws URISyntaxException, IOException {
    Path root =
        Path.of(OutboxMetrics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return coreClasses().stream()
        .filter(p -> !p.toString().replace('\\', '/').startsWith(allowedPackage))
        .filter(p -> contains(root.resolve(p), reference))
        .map(Path::toString)
        .toList();
  }

  private static boolean contains(Path classFile, String reference) {
    try {
      return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1)
          .contains(reference);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void onlyTheMetricsPackageRefersToMicrometer() throws Exception {
    assertThat(coreClasses()).contains(Path.of("dev/txoutbox/metrics/OutboxMetrics.class"));
    assertThat(referencing("io/micrometer/", "dev/txoutbox/tracing/"))
        .as("the scan sees references: the metrics classes have them")
        .contains(Path.of("dev/txoutbox/metrics/OutboxMetrics.class").toString());
    assertThat(referencing("io/micrometer/", "dev/txoutbox/metrics/")).isEmpty();
    assertThat(referencing("dev/txoutbox/metrics/", "dev/txoutbox/metrics/")).isEmpty();
  }

  @Test
  void onlyTheTracingPackageRefersToOpenTelemetry() throws Exception {
    assertThat(coreClasses())
        .contains(
            Path.of(OpenTelemetryHeadersProvider.class.getName().replace('.', '/') + ".class"));
    assertThat(referencing("io/opentelemetry/", "dev/txoutbox/metrics/"))
        .as("the scan sees references: the tracing classes have them")
        .isNotEmpty();
    assertThat(referencing("io/opentelemetry/", "dev/txoutbox/tracing/")).isEmpty();
    assertThat(referencing("dev/txoutbox/tracing/", "dev/txoutbox/tracing/")).isEmpty();
  }
}
