package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One interruption convention: a method that throws {@link InterruptedException} has cleared the
 * flag; the relay's workers, which own their threads, stop on an interrupt only when closing and
 * otherwise carry on once, without spinning.
 */
class RelayInterruptionTest {

  private static TestDatabase db;
  private static DSLContext mapped;
  private Outbox outbox;
  private OutboxAdmin admin;
  private final List<OutboxRelay> relays = new ArrayList<>();
  private ListAppender<ILoggingEvent> logs;
  private Logger relayLogger;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("interrupts");
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
    relayLogger = (Logger) LoggerFactory.getLogger("dev.txoutbox.relay");
    logs = new ListAppender<>();
    logs.start();
    relayLogger.addAppender(logs);
  }

  @AfterEach
  void close() {
    relays.forEach(r -> r.close(Duration.ofSeconds(5)));
    relayLogger.detachAppender(logs);
    Thread.interrupted();
  }

  private OutboxRelay relay(Publisher publisher) {
    OutboxRelay relay =
        TestSupport.relayBuilder(db, publisher)
            .config(
                RelayConfig.builder()
                    .minPollInterval(Duration.ofMillis(10))
                    .maxPollInterval(Duration.ofMillis(50))
                    .build())
            .build();
    relays.add(relay);
    return relay;
  }

  private List<UUID> write(int count) {
    List<UUID> ids = new ArrayList<>();
    DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    for (int i = 0; i < count; i++) {
      ids.add(
          dsl.transactionResult(
              tx -> outbox.record(tx.dsl(), "order", "o-" + UUID.randomUUID(), "e", "{}")));
    }
    return ids;
  }

  private long carryingOnWarnings() {
    return logs.list.stream()
        .filter(e -> e.getFormattedMessage().contains("interrupted while running; carrying on"))
        .count();
  }

  @Test
  void runOnceThrowsInterruptedWithTheFlagClearedEvenIfThePublisherSetItAgain() {
    write(3);
    Publisher rude =
        messages -> {
          Thread.currentThread().interrupt(); // breaks the convention: sets it and throws
          throw new InterruptedException("broker wait interrupted");
        };
    OutboxRelay relay = relay(rude);

    assertThatThrownBy(relay::runOnce)
        .isInstanceOf(InterruptedException.class)
        .hasMessage("broker wait interrupted");
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    assertThat(admin.pendingCount()).as("rolled back").isEqualTo(3);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0))).isZero();
  }

  @Test
  void aWorkerInterruptedWhilePublishingCarriesOnOnceAndPublishesEverything() {
    List<UUID> ids = write(5);
    AtomicInteger calls = new AtomicInteger();
    RecordingPublisher recorder = new RecordingPublisher();
    Publisher onceInterrupted =
        messages -> {
          if (calls.incrementAndGet() == 1) {
            throw new InterruptedException("a stray interrupt");
          }
          return recorder.publish(messages);
        };
    relay(onceInterrupted).start();

    await().atMost(Duration.ofSeconds(30)).until(() -> admin.pendingCount() == 0);
    assertThat(recorder.publishCounts()).containsOnlyKeys(ids);
    assertThat(carryingOnWarnings()).as("one line, not a busy loop").isEqualTo(1);
  }

  @Test
  void aWorkerInterruptedWhileWaitingCarriesOnOnceAndStaysResponsive() {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay = relay(publisher);
    relay.start();
    Thread worker =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("outbox-relay-default-worker-1"))
            .findFirst()
            .orElseThrow();

    worker.interrupt();
    await().atMost(Duration.ofSeconds(30)).until(() -> carryingOnWarnings() == 1);
    List<UUID> ids = write(2);
    relay.wakeUp();

    await().atMost(Duration.ofSeconds(30)).until(() -> admin.pendingCount() == 0);
    assertThat(publisher.publishCounts()).containsOnlyKeys(ids);
    assertThat(relay.isRunning()).isTrue();
    assertThat(carryingOnWarnings()).isEqualTo(1);
  }
}
