package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
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

  @Test
  void anErrorOfThePublisherIsARetryableFailureAndTheRelayGoesOn() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("er_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicReference<Error> error = new AtomicReference<>(new AssertionError("publisher bug"));
    WalRelay relay = kit.relay(tables, throwing(publisher, error), WalTestKit.config(100));
    relay.start();
    List<UUID> failed = write(tables, outbox, "a", 1);
    await().atMost(WAIT).until(() -> WalTestKit.touched(tables) == 1);
    List<UUID> later = write(tables, outbox, "b", 2);
    await().atMost(WAIT).until(() -> publisher.published().size() == 2);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(later);
    assertThat(relay.isRunning()).isTrue();
    assertThat(relay.reconnects()).isZero();
    assertThat(
            LogicalServer.dsl(tables)
                .select(OUTBOX_EVENTS.ATTEMPTS, OUTBOX_EVENTS.LAST_ERROR)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(failed.get(0)))
                .fetchSingle())
        .satisfies(r -> assertThat(r.value1()).isEqualTo(1))
        .satisfies(r -> assertThat(r.value2()).contains("publisher bug"));
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

  @Test
  void aStreamThatKeepsFailingBacksOffAndLogsTheStackTraceOnce() throws Exception {
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
    List<ILoggingEvent> failures =
        log.events().stream()
            .filter(e -> e.getFormattedMessage().contains("stream failed"))
            .toList();
    assertThat(failures).hasSizeGreaterThanOrEqualTo(4);
    assertThat(failures).filteredOn(e -> e.getThrowableProxy() != null).hasSize(1);
    assertThat(failures.get(0).getThrowableProxy()).isNotNull();
    assertThat(failures.get(3).getFormattedMessage()).contains("4 in a row");
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
