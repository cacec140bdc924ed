package dev.txoutbox.wal;

import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The reader thread survives what it can and says so when it cannot. */
class WalRelayResilienceTest {

  private final WalTestKit kit = new WalTestKit();
  private final CapturedLog log = new CapturedLog();

  @AfterEach
  void closeAll() throws Exception {
    log.close();
    kit.close();
  }

  /** Throws the error in {@code error} once, on the first call; then delegates to {@code to}. */
  private static Publisher throwing(RecordingPublisher to, AtomicReference<Error> error) {
    return messages -> {
      Error e = error.getAndSet(null);
      if (e != null) {
        throw e;
      }
      return to.publish(messages);
    };
  }

  /**
   * Issue 33, drift 2: an {@link Error} of the publisher rolls its batch back at no attempt, as in
   * the polling relay (it used to charge an attempt to every event of the batch); the stream is
   * reopened and the batch published again.
   */
  @Test
  void anErrorOfThePublisherRollsTheBatchBackAtNoAttemptAndTheRelayGoesOn() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("er_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicReference<Error> error = new AtomicReference<>(new AssertionError("publisher bug"));
    WalRelay relay = kit.relay(tables, throwing(publisher, error), WalTestKit.config(100));
    relay.start();
    List<UUID> first = write(tables, outbox, "a", 1);
    await().atMost(WAIT).until(() -> publisher.published().size() == 1);
    List<UUID> later = write(tables, outbox, "b", 2);
    await().atMost(WAIT).until(() -> publisher.published().size() == 3);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(WalTestKit.concat(first, later));
    assertThat(relay.isRunning()).isTrue();
    assertThat(relay.reconnects()).isEqualTo(1);
    assertThat(WalTestKit.touched(tables)).as("no attempt counted").isZero();
    assertThat(log.events())
        .filteredOn(e -> e.getFormattedMessage().contains("stream failed"))
        .singleElement()
        .satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN))
        .satisfies(e -> assertThat(e.getThrowableProxy()).isNotNull());
  }

  @Test
  void aVirtualMachineErrorStopsTheRelayAndIsRunningSaysSo() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("vm_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    AtomicReference<Error> error = new AtomicReference<>(new OutOfMemoryError("test"));
    WalRelay relay =
        kit.relay(tables, throwing(new RecordingPublisher(), error), WalTestKit.config(100));
    relay.start();
    assertThat(relay.isRunning()).isTrue();
    write(tables, outbox, "a", 1);
    await().atMost(WAIT).until(() -> !relay.isRunning());
    assertThat(relay.slotLagSeconds()).isNaN();
    assertThat(WalTestKit.touched(tables)).as("the batch rolled back").isZero();
    assertThat(log.events())
        .anyMatch(
            e ->
                e.getLevel() == Level.ERROR
                    && e.getFormattedMessage().contains("stopping on java.lang.OutOfMemoryError"));
  }

  /**
   * Issue 32's last item: a database that cannot be reached is one outage, as the polling relay
   * logs it: one WARN as it begins, the repeats at DEBUG.
   */
  @Test
  void aStreamThatKeepsFailingOnTheDatabaseIsOneWarning() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("bo_");
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, new RecordingPublisher(), WalTestKit.config(100))
                .replicationUrl(
                    "jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres",
                    LogicalServer.credentials())
                .reconnectDelay(Duration.ofMillis(1)));
    relay.start();
    await().atMost(WAIT).until(() -> relay.reconnects() >= 4);
    relay.close();
    List<ILoggingEvent> warnings =
        log.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).toList();
    assertThat(warnings).singleElement();
    assertThat(warnings.get(0).getFormattedMessage())
        .contains("database unavailable, retrying streams with backoff 1ms to 30s")
        .contains("Connection to 127.0.0.1:" + closedPort + " refused");
  }

  /** ... and one INFO with its length once a stream is open again. */
  @Test
  void aStreamCutByTheServerIsOneOutageWithItsEnd() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("cut_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = kit.relay(tables, publisher, WalTestKit.config(100));
    relay.start();
    write(tables, outbox, "a", 1);
    await().atMost(WAIT).until(() -> publisher.published().size() == 1);
    LogicalServer.execute(
        "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
            + relay.slotName()
            + "'");
    await()
        .atMost(WAIT)
        .until(
            () -> log.lines().stream().anyMatch(l -> l.contains("database available again after")));
    write(tables, outbox, "b", 1);
    await().atMost(WAIT).until(() -> publisher.published().size() == 2);
    assertThat(log.events())
        .filteredOn(e -> e.getFormattedMessage().contains("database unavailable"))
        .singleElement()
        .satisfies(e -> assertThat(e.getLevel()).isEqualTo(Level.WARN));
    assertThat(log.lines())
        .filteredOn(l -> l.contains("database available again after"))
        .singleElement()
        .asString()
        .endsWith("(1 failed streams)");
  }

  @Test
  void theReconnectDelayDoublesUpTo30Seconds() {
    Duration start = Duration.ofMillis(50);
    assertThat(WalRelay.reconnectDelay(start, 1)).isEqualTo(start);
    assertThat(WalRelay.reconnectDelay(start, 2)).isEqualTo(Duration.ofMillis(100));
    assertThat(WalRelay.reconnectDelay(start, 4)).isEqualTo(Duration.ofMillis(400));
    assertThat(WalRelay.reconnectDelay(start, 1_000)).isEqualTo(Duration.ofSeconds(30));
    assertThat(WalRelay.reconnectDelay(Duration.ofMinutes(1), 5)).isEqualTo(Duration.ofMinutes(1));
  }
}
