package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.OutboxTestDatabase;
import dev.txoutbox.testing.RecordingPublisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The relay's workers are daemon threads: a {@code main} that only starts the relay exits at once,
 * and {@link OutboxRelay#awaitTermination()} with {@link OutboxRelay#closeOnShutdown()} is how one
 * waits for it instead.
 */
class RelayLifecycleTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private OutboxRelay relay(String name) {
    return OutboxRelay.builder()
        .dataSource(db.dataSource())
        .schema(db.schema())
        .publisher(new RecordingPublisher())
        .config(RelayConfig.builder().name(name).build())
        .build();
  }

  @Test
  void awaitTerminationBlocksUntilAnotherThreadClosesTheRelay() throws Exception {
    OutboxRelay relay = relay("awaited");
    relay.start();
    CountDownLatch waiting = new CountDownLatch(1);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread waiter =
        new Thread(
            () -> {
              waiting.countDown();
              try {
                relay.awaitTermination();
              } catch (Throwable e) {
                failure.set(e);
              }
            });
    waiter.start();
    assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();

    assertThat(relay.awaitTermination(Duration.ZERO)).as("not closed yet").isFalse();
    assertThat(waiter.isAlive()).as("blocked while the relay runs").isTrue();

    relay.close();
    waiter.join();

    assertThat(failure.get()).isNull();
    assertThat(relay.awaitTermination(Duration.ZERO)).isTrue();
    relay.awaitTermination(); // returns at once once closed
  }

  @Test
  void aNullTimeoutIsRefusedBeforeTheRelayIsMarkedClosed() throws Exception {
    OutboxRelay relay = relay("null-timeout");
    relay.start();

    assertThatThrownBy(() -> relay.close(null)).isInstanceOf(NullPointerException.class);
    assertThat(relay.isRunning()).as("still running: nothing was closed").isTrue();

    relay.close();
    assertThat(relay.awaitTermination(Duration.ZERO)).isTrue();
  }

  @Test
  void closeOnShutdownIsIdempotentAndRefusedOnceClosed() {
    OutboxRelay relay = relay("hooked");
    assertThat(relay.closeOnShutdown()).isSameAs(relay);
    assertThat(relay.closeOnShutdown()).isSameAs(relay);
    relay.close(); // also unregisters the hook
    assertThatThrownBy(relay::closeOnShutdown)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("relay hooked must not be CLOSED to closeOnShutdown() but was CLOSED");
  }

  @Test
  void aMainThatOnlyStartsTheRelayExitsAtOnceBecauseItsWorkersAreDaemons() throws Exception {
    Path output = Files.createTempFile("relay-main", ".log");
    Process child = launch("start-only", output);
    try {
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the JVM exits by itself").isTrue();
      assertThat(child.exitValue()).isZero();
      assertThat(Files.readAllLines(output)).contains(RelayMain.STARTED);
    } finally {
      child.destroyForcibly();
      Files.deleteIfExists(output);
    }
  }

  @Test
  void aMainAwaitingTerminationStaysUpUntilSigtermThenTheHookClosesTheRelay() throws Exception {
    Path output = Files.createTempFile("relay-main", ".log");
    Process child = launch("await", output);
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.readAllLines(output).contains(RelayMain.AWAITING) || !child.isAlive());
      assertThat(Files.readAllLines(output))
          .as("the child got to awaitTermination()")
          .contains(RelayMain.AWAITING);
      assertThat(child.isAlive()).isTrue();

      child.toHandle().destroy(); // SIGTERM
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(Files.readAllLines(output))
          .as("the shutdown hook closed the relay")
          .anyMatch(l -> l.contains("outbox relay lifecycle-child closed"));
    } finally {
      child.destroyForcibly();
      Files.deleteIfExists(output);
    }
  }

  /**
   * A child JVM running {@link RelayMain} in {@code mode}, its output and errors to {@code output}.
   */
  private Process launch(String mode, Path output) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(
            java,
            "-cp",
            System.getProperty("java.class.path"),
            RelayMain.class.getName(),
            mode,
            db.jdbcUrl(),
            db.schema())
        .redirectErrorStream(true)
        .redirectOutput(output.toFile())
        .start();
  }
}
