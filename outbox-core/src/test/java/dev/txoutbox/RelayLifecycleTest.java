package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.OutboxTestDatabase;
import dev.txoutbox.testing.RecordingPublisher;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    Process child = launch("start-only");
    List<String> lines = readAll(child);
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the JVM exits by itself").isTrue();
    assertThat(child.exitValue()).isZero();
    assertThat(lines).contains(RelayMain.STARTED);
  }

  @Test
  void aMainAwaitingTerminationStaysUpUntilSigtermThenTheHookClosesTheRelay() throws Exception {
    Process child = launch("await");
    BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    List<String> lines = new ArrayList<>();
    String line;
    while ((line = out.readLine()) != null && !line.equals(RelayMain.AWAITING)) {
      lines.add(line);
    }
    assertThat(line).as("the child got to awaitTermination(); output: %s", lines).isNotNull();
    assertThat(child.isAlive()).isTrue();

    child.toHandle().destroy(); // SIGTERM, leaving our end of its output open
    while ((line = out.readLine()) != null) {
      lines.add(line);
    }
    assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(lines)
        .as("the shutdown hook closed the relay")
        .anyMatch(l -> l.contains("outbox relay lifecycle-child closed"));
  }

  private Process launch(String mode) throws Exception {
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
        .start();
  }

  private static List<String> readAll(Process child) throws Exception {
    List<String> lines = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
      }
    }
    return lines;
  }
}
