package dev.txoutbox.itmodulepath;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The testing kit on the module path: {@code outbox-testing} resolves as module {@code
 * dev.txoutbox.testing} beside every txoutbox module (no duplicate module name, as the old Kafka
 * test-jar had), and its Kafka fixture starts a broker when the kit and the Kafka client are on the
 * module path only: the broker's child JVM must find them there.
 */
class TestingKitOnTheModulePathTest {

  @Test
  void theKitResolvesBesideEveryTxoutboxModule() throws Exception {
    List<String> modulePath = new ArrayList<>();
    modulePath.add(System.getProperty("txoutbox.modulepath"));
    modulePath.add(jar("outbox-testing"));
    Run run =
        run(
            "--module-path",
            String.join(File.pathSeparator, modulePath),
            "--add-modules",
            "dev.txoutbox.testing,dev.txoutbox.itmodulepath",
            "--validate-modules");

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output()).doesNotContain("contains package").doesNotContain("duplicate");
  }

  @Test
  void theKafkaFixtureStartsFromTheModulePath() throws Exception {
    String kit = jar("outbox-testing");
    String client = jar("kafka-clients");
    String spi = jar("outbox-spi");
    List<String> classPath = new ArrayList<>(classPath());
    classPath.removeAll(List.of(kit, client, spi));
    Run run =
        run(
            "--module-path",
            String.join(File.pathSeparator, kit, client, spi),
            "--add-modules",
            "dev.txoutbox.testing,kafka.clients",
            "-cp",
            String.join(File.pathSeparator, classPath),
            KitOnTheModulePath.class.getName());

    assertThat(run.exitCode()).as(run.output()).isZero();
    assertThat(run.output().lines())
        .as(run.output())
        .contains("kit module: dev.txoutbox.testing", "client module: kafka.clients", "read: 1");
  }

  private static List<String> classPath() {
    return Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));
  }

  /** The jar (or classes directory) of {@code artifactId} on this test's class path. */
  private static String jar(String artifactId) {
    return classPath().stream()
        .filter(
            entry ->
                Path.of(entry).getFileName().toString().startsWith(artifactId + "-")
                    || entry.contains(File.separator + artifactId + File.separator))
        .filter(entry -> !entry.contains("-tests") && !entry.contains("test-classes"))
        .findFirst()
        .orElseThrow(() -> new AssertionError(artifactId + " is not on " + classPath()));
  }

  private record Run(int exitCode, String output) {}

  private static Run run(String... arguments) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("the JVM did not exit within 2 minutes:\n" + output);
    }
    return new Run(process.exitValue(), output);
  }
}
