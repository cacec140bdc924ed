package dev.txoutbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.tracing.OpenTelemetryHeadersProvider;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Micrometer and OpenTelemetry are optional dependencies of the core: only the classes that use
 * them may refer to them, so an application without them never loads a class that needs them. The
 * relay's builders name Micrometer in their {@code metrics(...)} signatures only; a relay (and the
 * Guice module) built without metrics runs without Micrometer on the class path.
 */
class OptionalLibrariesStayIsolatedTest {

  /** The classes besides the metrics packages that may name Micrometer: the builders. */
  private static final List<String> METRICS_BUILDERS =
      List.of(
          "dev/txoutbox/OutboxRelay$Builder.class",
          "dev/txoutbox/guice/OutboxModule$Builder.class");

  private static Path root() throws URISyntaxException {
    return Path.of(OutboxMetrics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }

  private static List<String> coreClasses() throws URISyntaxException, IOException {
    Path root = root();
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".class"))
          .map(p -> root.relativize(p).toString().replace('\\', '/'))
          .toList();
    }
  }

  /** Class files whose constant pool names {@code reference}, outside {@code allowed} prefixes. */
  private static List<String> referencing(String reference, List<String> allowed)
      throws URISyntaxException, IOException {
    Path root = root();
    return coreClasses().stream()
        .filter(p -> allowed.stream().noneMatch(p::startsWith))
        .filter(p -> contains(root.resolve(p), reference))
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

  private static List<String> with(List<String> list, String... more) {
    return Stream.concat(list.stream(), Arrays.stream(more)).toList();
  }

  @Test
  void onlyTheMetricsClassesAndTheRelayBuildersReferToMicrometer() throws Exception {
    assertThat(coreClasses()).contains("dev/txoutbox/metrics/OutboxMetrics.class");
    assertThat(referencing("io/micrometer/", List.of("dev/txoutbox/tracing/")))
        .as("the scan sees references: the metrics classes have them")
        .contains(
            "dev/txoutbox/metrics/OutboxMetrics.class",
            "dev/txoutbox/internal/metrics/RelayMeters.class");
    List<String> metricsPackages =
        List.of("dev/txoutbox/metrics/", "dev/txoutbox/internal/metrics/");
    assertThat(referencing("io/micrometer/", metricsPackages))
        .containsExactlyInAnyOrderElementsOf(METRICS_BUILDERS);
    // The WAL relay registers the outbox meters through its facade's Meters, which is loaded only
    // for a relay given metrics and names no Micrometer type itself.
    String walMeters = "dev/txoutbox/internal/kernel/RelayKernel$Meters.class";
    assertThat(referencing("dev/txoutbox/metrics/", metricsPackages))
        .containsExactlyInAnyOrderElementsOf(with(METRICS_BUILDERS, walMeters));
    assertThat(referencing("dev/txoutbox/internal/metrics/", metricsPackages))
        .as("the relay's builder and the WAL relay's facade register the meters; nothing else")
        .containsExactlyInAnyOrder("dev/txoutbox/OutboxRelay$Builder.class", walMeters);
  }

  @Test
  void onlyTheTracingPackageRefersToOpenTelemetry() throws Exception {
    assertThat(coreClasses())
        .contains(OpenTelemetryHeadersProvider.class.getName().replace('.', '/') + ".class");
    assertThat(referencing("io/opentelemetry/", List.of("dev/txoutbox/metrics/")))
        .as("the scan sees references: the tracing classes have them")
        .isNotEmpty();
    assertThat(referencing("io/opentelemetry/", List.of("dev/txoutbox/tracing/"))).isEmpty();
    assertThat(referencing("dev/txoutbox/tracing/", List.of("dev/txoutbox/tracing/"))).isEmpty();
  }

  @Test
  void aRelayAndTheGuiceModuleWithoutMetricsRunWithoutMicrometerOnTheClassPath() throws Exception {
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    URL[] withoutMicrometer =
        Arrays.stream(classPath.split(File.pathSeparator))
            .filter(entry -> !entry.replace('\\', '/').contains("/io/micrometer/"))
            .map(OptionalLibrariesStayIsolatedTest::url)
            .toArray(URL[]::new);
    assertThat(withoutMicrometer.length)
        .as("the class path had Micrometer to leave out")
        .isLessThan(classPath.split(File.pathSeparator).length);
    try (URLClassLoader loader =
        new URLClassLoader(withoutMicrometer, ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> loader.loadClass("io.micrometer.core.instrument.MeterRegistry"))
          .isInstanceOf(ClassNotFoundException.class);
      @SuppressWarnings("unchecked")
      Supplier<String> run =
          (Supplier<String>)
              loader
                  .loadClass(RelayWithoutMicrometer.class.getName())
                  .getDeclaredConstructor()
                  .newInstance();

      assertThat(run.get()).isEqualTo("relay published 1, pending 0; module relay on the schema");
    }
  }

  private static URL url(String entry) {
    try {
      return Path.of(entry).toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(entry, e);
    }
  }
}
