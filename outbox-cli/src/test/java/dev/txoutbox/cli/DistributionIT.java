package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The distribution archives that {@code mvn package} builds ({@code
 * target/txoutbox-<version>.tar.gz} and {@code .zip}), unpacked with the system's {@code tar} and
 * {@code unzip} as a user would, and their {@code bin/txoutbox} run as a child process.
 */
class DistributionIT {

  private static final String VERSION = System.getProperty("txoutbox.version", "0.1.0-SNAPSHOT");

  @TempDir static Path unpacked;

  @BeforeAll
  static void unpack() throws Exception {
    Path archive = Paths.get(System.getProperty("txoutbox.dist", "target/txoutbox-" + VERSION));
    Path tarGz = Paths.get(archive + ".tar.gz");
    Path zip = Paths.get(archive + ".zip");
    Files.createDirectories(unpacked.resolve("tar.gz"));
    Files.createDirectories(unpacked.resolve("zip"));
    unpackWith(
        List.of("tar", "-xzf", tarGz.toString(), "-C", unpacked.resolve("tar.gz").toString()));
    unpackWith(List.of("unzip", "-q", zip.toString(), "-d", unpacked.resolve("zip").toString()));
  }

  private static void unpackWith(List<String> command) throws Exception {
    try (JarProcess p = JarProcess.runCommand(command, Map.of())) {
      assertThat(p.exitCode()).as(command + ": " + p.err()).isZero();
    }
  }

  /** The distribution's root directory as unpacked from the archive of {@code format}. */
  private static Path home(String format) {
    return unpacked.resolve(format).resolve("txoutbox-" + VERSION);
  }

  private static List<String> launcher(String format, String... args) {
    return Stream.concat(
            Stream.of(home(format).resolve("bin/txoutbox").toString()), Stream.of(args))
        .toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"tar.gz", "zip"})
  void theArchiveHoldsTheLauncherTheJarAndTheReadmeUnderOneDirectory(String format)
      throws Exception {
    try (Stream<Path> top = Files.list(unpacked.resolve(format));
        Stream<Path> files = Files.walk(home(format))) {
      assertThat(top).containsExactly(home(format));
      assertThat(files.filter(Files::isRegularFile).map(f -> home(format).relativize(f).toString()))
          .containsExactlyInAnyOrder("bin/txoutbox", "lib/txoutbox.jar", "README.md");
    }
    assertThat(Files.getPosixFilePermissions(home(format).resolve("bin/txoutbox")))
        .isEqualTo(PosixFilePermissions.fromString("rwxr-xr-x"));
    assertThat(Files.getPosixFilePermissions(home(format).resolve("lib/txoutbox.jar")))
        .doesNotContain(PosixFilePermission.OWNER_EXECUTE);
    assertThat(Files.readAllBytes(home(format).resolve("lib/txoutbox.jar")))
        .isEqualTo(Files.readAllBytes(JarProcess.jar()));
  }

  @ParameterizedTest
  @ValueSource(strings = {"tar.gz", "zip"})
  void versionAndHelpRunFromTheUnpackedArchive(String format) throws Exception {
    try (JarProcess version = JarProcess.runCommand(launcher(format, "--version"), Map.of());
        JarProcess help = JarProcess.runCommand(launcher(format, "--help"), Map.of())) {
      assertThat(version.exitCode()).as(version.err()).isZero();
      assertThat(version.out()).isEqualTo("txoutbox " + VERSION + "\n");
      assertThat(version.err()).isEmpty();
      assertThat(help.exitCode()).as(help.err()).isZero();
      assertThat(help.out())
          .startsWith("Usage: txoutbox")
          .contains("migrate", "status", "dead-letters", "cleanup", "relay");
    }
  }

  @Test
  void statusRunsAgainstTheDatabase() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_dist")) {
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      try (JarProcess status =
          JarProcess.runCommand(
              launcher("tar.gz", "--schema", db.schema(), "status", "--json"), env)) {
        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat(status.out())
            .startsWith("{\"schema\":\"" + db.schema() + "\",\"pending\":0,\"due_now\":0,");
      }
    }
  }

  /** JAVA_HOME picks the JVM and JAVA_OPTS reach it, split on spaces, before {@code -jar}. */
  @Test
  void theLauncherRunsJavaHomesJavaWithJavaOpts(@TempDir Path fakeJavaHome) throws Exception {
    Path java = fakeJavaHome.resolve("bin/java");
    Path argsFile = fakeJavaHome.resolve("args.txt");
    Files.createDirectories(java.getParent());
    Files.writeString(java, "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + argsFile + "'\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, String> env =
        Map.of("JAVA_HOME", fakeJavaHome.toString(), "JAVA_OPTS", "-Xmx64m -Dtxoutbox.a=b");
    try (JarProcess p =
        JarProcess.runCommand(launcher("tar.gz", "status", "--schema", "a b"), env)) {
      assertThat(p.exitCode()).as(p.err()).isZero();
    }
    assertThat(Files.readAllLines(argsFile))
        .containsExactly(
            "-Xmx64m",
            "-Dtxoutbox.a=b",
            "-jar",
            home("tar.gz").resolve("lib/txoutbox.jar").toString(),
            "status",
            "--schema",
            "a b");
  }

  /** Without java on PATH, JAVA_HOME alone is enough; without both, one line says what to do. */
  @Test
  void javaHomeIsEnoughAndItsAbsenceIsOneClearError(@TempDir Path bin) throws Exception {
    // A PATH with only what the launcher itself calls, and no java.
    Files.createSymbolicLink(bin.resolve("dirname"), Paths.get("/usr/bin/dirname"));
    Map<String, String> javaHome =
        Map.of("PATH", bin.toString(), "JAVA_HOME", System.getProperty("java.home"));
    try (JarProcess withHome = JarProcess.runCommand(launcher("zip", "--version"), javaHome);
        JarProcess without =
            JarProcess.runCommand(launcher("zip", "--version"), Map.of("PATH", bin.toString()));
        JarProcess badHome =
            JarProcess.runCommand(
                launcher("zip", "--version"),
                Map.of("PATH", bin.toString(), "JAVA_HOME", bin.toString()))) {
      assertThat(withHome.exitCode()).as(withHome.err()).isZero();
      assertThat(withHome.out()).isEqualTo("txoutbox " + VERSION + "\n");
      assertThat(without.exitCode()).isEqualTo(1);
      assertThat(without.err())
          .isEqualTo(
              "txoutbox: no java on PATH and JAVA_HOME is not set; install Java 17+ or set"
                  + " JAVA_HOME\n");
      assertThat(badHome.exitCode()).isEqualTo(1);
      assertThat(badHome.err())
          .startsWith("txoutbox: JAVA_HOME is " + bin + " but " + bin + "/bin/java is not");
    }
  }

  /** A symbolic link to the launcher (from /usr/local/bin, say) still finds the jar. */
  @Test
  void theLauncherWorksThroughASymbolicLink(@TempDir Path elsewhere) throws Exception {
    Path link = elsewhere.resolve("txoutbox");
    Files.createSymbolicLink(link, home("tar.gz").resolve("bin/txoutbox"));
    Path relative = elsewhere.resolve("relative");
    Files.createSymbolicLink(relative, elsewhere.relativize(link));
    try (JarProcess p =
        JarProcess.runCommand(List.of(relative.toString(), "--version"), Map.of())) {
      assertThat(p.exitCode()).as(p.err()).isZero();
      assertThat(p.out()).isEqualTo("txoutbox " + VERSION + "\n");
    }
  }
}
