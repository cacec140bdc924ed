package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every thread a relay starts comes from one place: the user's {@link
 * OutboxRelay.Builder#threadFactory}, or daemon threads named {@code outbox-relay-<name>-<role>}.
 */
class RelayThreadFactoryTest {

  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("thread_factory");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  /** A factory that records the threads it made, each named {@code app-<n>}, not a daemon. */
  private static final class CountingFactory implements ThreadFactory {
    final List<Thread> made = new CopyOnWriteArrayList<>();
    private final AtomicInteger n = new AtomicInteger();

    @Override
    public Thread newThread(Runnable task) {
      Thread t = new Thread(task, "app-" + n.incrementAndGet());
      made.add(t);
      return t;
    }
  }

  @Test
  void everyThreadOfTheRelayIsMadeByTheUsersFactory() {
    CountingFactory factory = new CountingFactory();
    OutboxRelay relay =
        TestSupport.relayBuilder(db, new RecordingPublisher())
            .config(RelayConfig.builder().name("factory").workers(2).build())
            .metrics(new SimpleMeterRegistry())
            .listenForNotifications(true)
            .threadFactory(factory)
            .build();
    try {
      relay.start();
      // Two workers, the heartbeat, the notification listener and the meters' refresh.
      await().until(() -> factory.made.size() == 5);
      assertThat(factory.made).allSatisfy(t -> assertThat(t.isDaemon()).isFalse());
      assertThat(relayThreadNames("factory"))
          .as("no thread of the relay's own naming: the factory made them all")
          .isEmpty();
    } finally {
      relay.close(Duration.ofSeconds(5));
    }
    await().until(() -> factory.made.stream().noneMatch(Thread::isAlive));
  }

  @Test
  void withoutAFactoryTheRelaysThreadsAreDaemonsNamedInOnePattern() {
    OutboxRelay relay =
        TestSupport.relayBuilder(db, new RecordingPublisher())
            .config(RelayConfig.builder().name("own").workers(2).build())
            .metrics(new SimpleMeterRegistry())
            .listenForNotifications(true)
            .build();
    try {
      relay.start();
      await()
          .until(
              () ->
                  relayThreadNames("own")
                      .equals(
                          Set.of(
                              "outbox-relay-own-worker-1",
                              "outbox-relay-own-worker-2",
                              "outbox-relay-own-heartbeat",
                              "outbox-relay-own-listener",
                              "outbox-relay-own-metrics")));
      assertThat(
              Thread.getAllStackTraces().keySet().stream()
                  .filter(t -> t.getName().startsWith("outbox-relay-own-")))
          .allSatisfy(t -> assertThat(t.isDaemon()).as(t.getName()).isTrue());
    } finally {
      relay.close(Duration.ofSeconds(5));
    }
  }

  @Test
  void aFactoryThatMakesNoThreadIsNamedInTheError() {
    OutboxRelay relay =
        TestSupport.relayBuilder(db, new RecordingPublisher())
            .config(RelayConfig.builder().name("broken").build())
            .threadFactory(task -> null)
            .build();
    try {
      assertThatThrownBy(relay::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("the thread factory must make a thread for outbox-relay-broken-");
    } finally {
      relay.close(Duration.ofSeconds(5));
    }
  }

  @Test
  void aNullFactoryIsRefused() {
    assertThatThrownBy(() -> OutboxRelay.builder().threadFactory(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("threadFactory");
  }

  private static Set<String> relayThreadNames(String relay) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(n -> n.startsWith("outbox-relay-" + relay + "-"))
        .collect(Collectors.toSet());
  }
}
