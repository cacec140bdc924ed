package dev.txoutbox.itmodulepath;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link ModulePathApp} in a JVM of its own with nothing but a module path: the application's
 * classes and its runtime dependencies, txoutbox's jars among them. A descriptor that lacks a
 * {@code requires}, an {@code opens} for Guice, a {@code provides} for {@link
 * java.util.ServiceLoader} or access to its Flyway scripts makes the application fail or print
 * something else.
 */
class ModulePathSmokeTest {

  @Test
  void everyModuleWorksFromTheModulePath() throws Exception {
    String modulePath = System.getProperty("txoutbox.modulepath");
    assertThat(modulePath).as("system property txoutbox.modulepath").isNotBlank();
    assertThat(modulePath.split(File.pathSeparator))
        .as("the module path holds no test tools")
        .noneMatch(entry -> entry.contains("junit") || entry.contains("-tests.jar"));

    try (TestDatabase db = TestDatabase.createEmpty("modulepath", 2)) {
      String schema = db.schema();
      Run run = launch(modulePath, TestDatabase.jdbcUrl(), schema);

      assertThat(run.exitCode()).as(run.output()).isZero();
      assertThat(run.output().lines())
          .as(run.output())
          .contains(
              "modules: dev.txoutbox.core, dev.txoutbox.itmodulepath",
              "providers: [kafka=KafkaPublisher in "
                  + schema
                  + ", rabbit=RabbitPublisher in "
                  + schema
                  + ", sqs=SqsPublisher in "
                  + schema
                  + "]",
              "relayed: 1, received true, pending 0",
              "inbox: first true, again false",
              "wal: slot txoutbox_" + schema + ", default true, found false",
              "guice: relay in " + schema + ", admin pending 0",
              ModulePathApp.DONE)
          .anyMatch(line -> line.matches("migrated: outbox [1-9][0-9]*, inbox [1-9][0-9]*"));

      OutboxAdmin admin = OutboxAdmin.create(db.dataSource(), schema);
      assertThat(admin.pendingCount()).isZero();
      assertThat(admin.deadLetterCount()).isZero();
    }
  }

  private record Run(int exitCode, String output) {}

  private static Run launch(String modulePath, String jdbcUrl, String schema)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Process process =
        new ProcessBuilder(
                List.of(
                    java.toString(),
                    "--module-path",
                    modulePath,
                    "--module",
                    "dev.txoutbox.itmodulepath/dev.txoutbox.itmodulepath.ModulePathApp",
                    jdbcUrl,
                    schema))
            .redirectErrorStream(true)
            .start();
    process.getOutputStream().close();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("the application did not exit within 2 minutes:\n" + output);
    }
    return new Run(process.exitValue(), output);
  }
}
