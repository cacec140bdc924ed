package dev.txoutbox.guice;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboxLifecycle#closeOnShutdown()}: SIGTERM to a JVM running a started lifecycle closes
 * the relay, then the publisher, before the JVM exits.
 */
class OutboxLifecycleShutdownTest {

  @Test
  void sigtermClosesTheRelayThenThePublisher() throws Exception {
    try (TestDatabase db = TestDatabase.create("lifecycle_shutdown")) {
      Process process =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  LifecycleShutdownMain.class.getName(),
                  TestDatabase.jdbcUrl(),
                  db.schema())
              .redirectErrorStream(true)
              .start();
      List<String> lines = new ArrayList<>();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = out.readLine()) != null) {
          lines.add(line);
          if (line.startsWith("started")) {
            process.toHandle().destroy(); // SIGTERM, keeping the output stream open
          }
        }
      } finally {
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }

      assertThat(lines)
          .as(String.join("\n", lines))
          .contains("started, relay running: true", "publisher closed, relay running: false");
      assertThat(lines.indexOf("publisher closed, relay running: false"))
          .isGreaterThan(lines.indexOf("started, relay running: true"));
    }
  }
}
