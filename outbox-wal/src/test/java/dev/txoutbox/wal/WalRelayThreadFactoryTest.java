package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WalRelayBuilder#threadFactory}: the user's factory makes every thread the WAL relay starts
 * (stream reader, batch threads, meters, heartbeat, and its sweeper's); without one, the library's
 * daemon threads are named {@code outbox-wal-<name>-<role>}.
 */
class WalRelayThreadFactoryTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void close() throws Exception {
    kit.close();
  }

  @Test
  void theUsersFactoryMakesEveryThreadTheRelayAndItsSweeperStart() {
    OutboxTables tables = LogicalServer.freshOutbox("tf_");
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicInteger made = new AtomicInteger();
    Set<Thread> threads = ConcurrentHashMap.newKeySet();
    ThreadFactory factory =
        task -> {
          Thread t = new Thread(task, "app-pool-" + made.incrementAndGet());
          t.setDaemon(true);
          threads.add(t);
          return t;
        };
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(
                    tables, publisher, RelayConfig.builder().name("wal-tf").batchSize(10).build())
                .metrics(OutboxMetrics.builder(new SimpleMeterRegistry()).build())
                .sweeper(true)
                .sweepInterval(Duration.ofSeconds(1))
                .threadFactory(factory));
    relay.start();
    List<UUID> ids = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 3);
    await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().containsAll(ids));
    OutboxRelay sweeper = relay.sweeper().orElseThrow();
    await().atMost(WalTestKit.WAIT).until(sweeper::isRunning);
    // The sweeper's worker, started one sweep interval after the stream, by the same factory.
    await()
        .atMost(WalTestKit.WAIT)
        .until(() -> threads.stream().filter(Thread::isAlive).count() >= 5);

    assertThat(liveThreadsNamed("wal-tf"))
        .as("no thread of the relay or its sweeper made by the library")
        .isEmpty();
    assertThat(made.get()).isGreaterThanOrEqualTo(5);
  }

  @Test
  void withoutAFactoryTheRelaysThreadsAreNamedAfterItAndTheirRole() {
    OutboxTables tables = LogicalServer.freshOutbox("tfd_");
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(
                    tables,
                    publisher,
                    RelayConfig.builder().name("wal-named").batchSize(10).build())
                .sweeper(false));
    relay.start();
    List<UUID> ids = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 2);
    await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().containsAll(ids));

    assertThat(liveThreadsNamed("wal-named"))
        .contains("outbox-wal-wal-named-reader", "outbox-relay-wal-named-heartbeat");
    assertThat(
            Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("outbox-wal-wal-named-reader"))
                .allMatch(Thread::isDaemon))
        .isTrue();
  }

  private static List<String> liveThreadsNamed(String relayName) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("outbox-") && n.contains(relayName))
        .toList();
  }
}
