package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shaded jar as users run it: its own process, its own stdout and stderr. */
class CliJarIT {

  @Test
  void helpAndVersionExitZero() throws Exception {
    try (JarProcess help = JarProcess.run(Map.of(), "--help");
        JarProcess version = JarProcess.run(Map.of(), "--version")) {
      assertThat(help.exitCode()).isZero();
      assertThat(help.out()).contains("Usage: txoutbox").contains("dead-letters").contains("relay");
      assertThat(version.exitCode()).isZero();
      assertThat(version.out()).startsWith("txoutbox ");
    }
  }

  @Test
  void anUnreachableDatabaseIsOneLineOnStderrAndExitOne() throws Exception {
    try (JarProcess p =
        JarProcess.run(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x"), "status", "--json")) {
      assertThat(p.exitCode()).isEqualTo(1);
      assertThat(p.err().lines())
          .containsExactly(
              "txoutbox: cannot reach the database at jdbc:postgresql://127.0.0.1:1/x:"
                  + " Connection refused");
      assertThat(p.out()).isEmpty();
    }
  }

  /**
   * Each publisher is built before the database is reached, so reaching the database error proves
   * the shaded jar carries what the broker clients load at run time (service files, Netty).
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "kafka --bootstrap-servers 127.0.0.1:1 --topic-prefix shop.",
        "sqs --sqs-region eu-west-1 --sqs-endpoint http://127.0.0.1:1 --queue order=orders",
        "rabbit --amqp-uri amqp://guest:guest@127.0.0.1:1/%2F --exchange x"
      })
  void everyPublisherCanBeBuiltFromTheJar(String publisher) throws Exception {
    List<String> args = new ArrayList<>(List.of("relay", "--publisher"));
    args.addAll(List.of(publisher.split(" ")));
    try (JarProcess p =
        JarProcess.run(
            Map.of("OUTBOX_JDBC_URL", "jdbc:postgresql://127.0.0.1:1/x"),
            args.toArray(String[]::new))) {
      assertThat(p.exitCode()).as(p.err()).isEqualTo(1);
      assertThat(p.err().lines().filter(l -> l.startsWith("txoutbox:")))
          .containsExactly(
              "txoutbox: cannot reach the database at jdbc:postgresql://127.0.0.1:1/x:"
                  + " Connection refused");
    }
  }

  @Test
  void badArgumentsExitTwo() throws Exception {
    try (JarProcess p = JarProcess.run(Map.of(), "dead-letters", "purge", "--all", "--all")) {
      assertThat(p.exitCode()).isEqualTo(2);
      assertThat(p.err()).contains("Usage:");
    }
  }

  @Test
  void statusJsonIsAloneOnStdoutAndDeadLettersExitThree() throws Exception {
    try (TestDatabase db = TestDatabase.create("cli_jar")) {
      OutboxFixture outbox = new OutboxFixture(db);
      Map<String, String> env =
          Map.of("OUTBOX_JDBC_URL", TestDatabase.jdbcUrl(), "OUTBOX_DB_USER", "postgres");
      try (JarProcess clean = JarProcess.run(env, "status", "--json", "--schema", db.schema())) {
        assertThat(clean.exitCode()).as(clean.err()).isZero();
        assertThat(clean.out())
            .isEqualTo(
                "{\"schema\":\""
                    + db.schema()
                    + "\",\"pending\":0,\"due_now\":0,\"dead_letters\":0,"
                    + "\"oldest_pending_age_seconds\":null,\"processed_last_minute\":0}"
                    + System.lineSeparator());
      }
      outbox.deadLetters("order.rejected", 1);
      try (JarProcess dead = JarProcess.run(env, "status", "--json", "--schema", db.schema())) {
        assertThat(dead.exitCode()).isEqualTo(3);
        assertThat(dead.out()).contains("\"dead_letters\":1");
      }
    }
  }
}
