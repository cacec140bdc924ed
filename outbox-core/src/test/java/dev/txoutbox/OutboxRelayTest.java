package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.model.tables.records.OutboxEventsRecord;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.OutboxTestDatabase;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

class OutboxRelayTest {

  @RegisterExtension
  static final OutboxTestDatabase db = OutboxTestDatabase.builder().poolSize(16).build();

  private DSLContext dsl;
  private DSLContext mapped;
  private Outbox outbox;
  private OutboxAdmin admin;
  private final List<OutboxRelay> relays = new ArrayList<>();

  @BeforeEach
  void clean() {
    db.truncateOutbox();
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    mapped = db.dsl();
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  @AfterEach
  void closeRelays() {
    relays.forEach(r -> r.close(Duration.ofSeconds(5)));
  }

  private static OutboxRelay.Builder relayBuilder(Publisher publisher) {
    return OutboxRelay.builder()
        .dataSource(db.dataSource())
        .schema(db.schema())
        .publisher(publisher);
  }

  private OutboxRelay relay(Publisher publisher, RelayConfig config) {
    return relay(publisher, config, null);
  }

  private OutboxRelay relay(Publisher publisher, RelayConfig config, TestClock clock) {
    OutboxRelay.Builder b = relayBuilder(publisher).config(config);
    if (clock != null) {
      b.clock(clock);
    }
    OutboxRelay relay = b.build();
    relays.add(relay);
    return relay;
  }

  private List<UUID> write(int count, String aggregateId) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(OutboxEvent.of("order", aggregateId, "order.created", "{\"i\":" + i + "}"));
    }
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  /**
   * Writes {@code count} events, each of its own aggregate: after a failure, the relay does not
   * attempt the later events of the same aggregate in the batch.
   */
  private List<UUID> writeEach(int count, String aggregatePrefix) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(OutboxEvent.of("order", aggregatePrefix + "-" + i, "order.created", "{}"));
    }
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private OutboxEventsRecord row(UUID id) {
    return mapped.selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(id)).fetchSingle();
  }

  @Test
  void fourRelaysDrainTenThousandEventsPublishingEachExactlyOnce() {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ids.addAll(write(1_000, "agg-" + i));
    }
    RecordingPublisher publisher = new RecordingPublisher();
    for (int i = 0; i < 4; i++) {
      relay(publisher, RelayConfig.builder().name("r" + i).batchSize(100).build()).start();
    }

    await().atMost(Duration.ofMinutes(2)).until(() -> admin.pendingCount() == 0);

    assertThat(publisher.publishCounts()).hasSize(10_000).containsOnlyKeys(ids);
    assertThat(publisher.publishCounts().values()).allMatch(n -> n == 1);
    assertThat(publisher.attempted()).hasSize(10_000);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNotNull()))
        .isEqualTo(10_000);
  }

  @Test
  void retriesWithGrowingBackoffThenDeadLettersWhileHealthyEventsPass() throws Exception {
    TestClock clock = TestClock.now();
    List<UUID> poison = writeEach(3, "poison");
    List<UUID> healthy = write(5, "healthy");
    RecordingPublisher publisher =
        new RecordingPublisher()
            .failWhen(
                m -> m.aggregateId().startsWith("poison"),
                PublishResult.retryable("broker said no"));
    OutboxRelay relay =
        relay(
            publisher,
            RelayConfig.builder()
                .maxAttempts(3)
                .backoff(
                    Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1)).withJitter(0))
                .build(),
            clock);

    OutboxRelay.DrainResult first = relay.drain();
    assertThat(first.published()).containsExactlyElementsOf(healthy);
    assertThat(first.retried()).isEqualTo(3);
    assertThat(first.deadLettered()).isZero();
    assertThat(first.cycles()).as("the second cycle finds nothing due").isEqualTo(2);
    publisher.assertPublished().containsExactlyIds(healthy.toArray(UUID[]::new));
    assertRetry(poison, 1, clock.instant().plusSeconds(1));

    assertThat(relay.drain().cycles()).as("nothing is due before its retry time").isEqualTo(1);

    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.drain().retried()).isEqualTo(3);
    assertRetry(poison, 2, clock.instant().plusSeconds(2));

    clock.advance(Duration.ofSeconds(2));
    OutboxRelay.DrainResult last = relay.drain();
    assertThat(last.published()).isEmpty();
    assertThat(last.deadLettered()).isEqualTo(3);
    for (UUID id : poison) {
      OutboxEventsRecord r = row(id);
      assertThat(r.getAttempts()).isEqualTo(3);
      assertThat(r.getDeadLetteredAt()).isNotNull();
      assertThat(r.getProcessedAt()).isNull();
      assertThat(r.getLastError()).isEqualTo("broker said no");
    }
    assertThat(admin.deadLetterCount()).isEqualTo(3);
    assertThat(admin.pendingCount()).isZero();
    clock.advance(Duration.ofHours(1));
    assertThat(relay.runOnce()).as("dead letters are never claimed").isZero();
    assertThat(publisher.attempted().stream().filter(m -> m.aggregateId().startsWith("poison")))
        .extracting(OutboxMessage::attempt)
        .containsExactlyInAnyOrder(1, 1, 1, 2, 2, 2, 3, 3, 3);
  }

  @Test
  void runOnceCountsClaimedEventsButDrainReportsOnlyPublishedOnes() throws Exception {
    UUID failing = write(1, "failing").get(0);
    UUID fine = write(1, "fine").get(0);
    RecordingPublisher publisher = new RecordingPublisher().failWhen(m -> m.id().equals(failing));
    OutboxRelay relay = relay(publisher, RelayConfig.defaults(), TestClock.now());

    assertThat(relay.runOnce()).as("claimed, not published").isEqualTo(2);
    UUID third = write(1, "third").get(0);
    OutboxRelay.DrainResult drained = relay.drain();

    assertThat(drained.published()).containsExactly(third);
    assertThat(drained.publishedCount()).isEqualTo(1);
    assertThat(drained.retried()).as("the failed event is not due again yet").isZero();
    assertThat(publisher.publishedIds()).containsExactly(fine, third);
  }

  @Test
  void aFailedPublishIsRetriedOnceTheTestClockPassesItsBackoff() throws Exception {
    UUID id = write(1, "later").get(0);
    TestClock clock = TestClock.now();
    RecordingPublisher publisher = new RecordingPublisher().failNext(1);
    OutboxRelay relay = relay(publisher, RelayConfig.defaults(), clock);

    OutboxRelay.DrainResult first = relay.drain();
    assertThat(first.published()).isEmpty();
    assertThat(first.retried()).isEqualTo(1);

    clock.advance(Duration.ofMinutes(1));
    assertThat(relay.drain().published()).containsExactly(id);
    assertThat(publisher.attempts()).extracting(a -> a.message().attempt()).containsExactly(1, 2);
  }

  @Test
  void anEventDelayedAWeekIsDueAtItsTimeAndNotBefore() throws Exception {
    TestClock clock = TestClock.now();
    Instant dueAt = clock.instant().plus(Duration.ofDays(7));
    UUID id =
        dsl.transactionResult(
            tx ->
                outbox.record(
                    tx.dsl(),
                    OutboxEvent.builder("order", "reminder", "order.remind")
                        .payload("{}")
                        .notBefore(dueAt)
                        .build()));
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay = relay(publisher, RelayConfig.defaults(), clock);

    assertThat(relay.drain().published()).isEmpty();
    clock.set(dueAt.minusMillis(1));
    assertThat(relay.drain().published()).isEmpty();
    clock.set(dueAt);
    assertThat(relay.drain().published()).containsExactly(id);
    publisher.assertPublished().containsExactlyIds(id);
  }

  @Test
  void drainStopsWhenTheBrokerIsUnavailableLeavingEventsPendingAtNoAttempt() throws Exception {
    List<UUID> ids = writeEach(4, "outage");
    RecordingPublisher publisher =
        new RecordingPublisher().answer(m -> PublishResult.brokerUnavailable("connection refused"));
    OutboxRelay relay = relay(publisher, RelayConfig.defaults());

    OutboxRelay.DrainResult drained = relay.drain();

    assertThat(drained.published()).isEmpty();
    assertThat(drained.unavailable()).isEqualTo(4);
    assertThat(drained.cycles()).isEqualTo(1);
    assertThat(admin.pendingCount()).isEqualTo(4);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0))).isZero();

    publisher.clearFailures();
    assertThat(relay.drain().published()).containsExactlyInAnyOrderElementsOf(ids);
  }

  @Test
  void drainRunsFullBatchesUntilNothingIsDueAndIsRefusedWhileTheWorkersRun() throws Exception {
    List<UUID> ids = write(250, "many");
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay = relay(publisher, RelayConfig.builder().batchSize(100).build());

    OutboxRelay.DrainResult drained = relay.drain();

    assertThat(drained.published()).containsExactlyElementsOf(ids);
    assertThat(drained.cycles()).as("100, 100, 50, then a claim of nothing").isEqualTo(4);
    publisher.assertPublished().hasSize(250);

    OutboxRelay running =
        relay(new RecordingPublisher(), RelayConfig.builder().name("busy").build());
    running.start();
    assertThatThrownBy(running::drain)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("relay busy must not be running to drain()");
    running.close();
    assertThat(running.drain().published()).isEmpty();
  }

  private void assertRetry(List<UUID> ids, int attempts, Instant retryAfter) {
    for (UUID id : ids) {
      OutboxEventsRecord r = row(id);
      assertThat(r.getAttempts()).isEqualTo(attempts);
      assertThat(r.getRetryAfter().toInstant()).isEqualTo(retryAfter);
      assertThat(r.getDeadLetteredAt()).isNull();
      assertThat(r.getLastError()).startsWith("broker said no");
    }
  }

  @Test
  void permanentFailureDeadLettersAtOnce() throws Exception {
    UUID bad = write(1, "too-big").get(0);
    UUID good = write(1, "fine").get(0);
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(bad)
                        ? PublishResult.permanent(
                            "record too large", new IllegalStateException("1 MB"))
                        : PublishResult.published());
    AtomicInteger deadLettered = new AtomicInteger();
    OutboxRelay relay =
        relayBuilder(publisher)
            .listener(
                new RelayListener() {
                  @Override
                  public void deadLettered(OutboxMessage message, PublishResult failure) {
                    deadLettered.incrementAndGet();
                  }
                })
            .build();

    relay.runOnce();

    assertThat(row(bad).getDeadLetteredAt()).isNotNull();
    assertThat(row(bad).getAttempts()).isEqualTo(1);
    assertThat(row(bad).getLastError())
        .isEqualTo("record too large: java.lang.IllegalStateException: 1 MB");
    assertThat(row(good).getProcessedAt()).isNotNull();
    assertThat(deadLettered).hasValue(1);
  }

  @Test
  void requeuedDeadLetterIsPublished() throws Exception {
    UUID id = write(1, "flaky").get(0);
    RecordingPublisher publisher =
        new RecordingPublisher().answer(m -> PublishResult.permanent("topic missing"));
    OutboxRelay relay = relay(publisher, RelayConfig.defaults());
    relay.runOnce();
    assertThat(admin.deadLetterCount()).isEqualTo(1);

    publisher.answer(m -> PublishResult.published());
    assertThat(admin.requeue(DeadLetterSelector.ids(id))).isEqualTo(1);
    assertThat(row(id).getAttempts()).isZero();
    assertThat(row(id).getDeadLetteredAt()).isNull();

    assertThat(relay.runOnce()).isEqualTo(1);
    assertThat(row(id).getProcessedAt()).isNotNull();
    assertThat(publisher.publishCounts()).containsOnlyKeys(id);
  }

  @Test
  void deleteModeRemovesPublishedRowsAndKeepsFailedOnes() throws Exception {
    write(10, "ok");
    UUID failing = write(1, "failing").get(0);
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(failing)
                        ? PublishResult.retryable("later")
                        : PublishResult.published());
    relay(publisher, RelayConfig.builder().completionMode(CompletionMode.DELETE).build()).runOnce();

    assertThat(mapped.fetchCount(OUTBOX_EVENTS)).isEqualTo(1);
    assertThat(row(failing).getAttempts()).isEqualTo(1);
  }

  @Test
  void closeDuringABatchRollsItBackAndLosesNothing() throws Exception {
    List<UUID> ids = write(50, "closing");
    CountDownLatch entered = new CountDownLatch(1);
    Publisher stuck =
        new Publisher() {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages)
              throws InterruptedException {
            entered.countDown();
            new CountDownLatch(1).await(); // a broker that never answers
            throw new AssertionError("unreachable");
          }
        };
    OutboxRelay relay = relay(stuck, RelayConfig.builder().batchSize(20).build());
    relay.start();
    assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

    relay.close(Duration.ofMillis(200));

    assertThat(relay.isRunning()).isFalse();
    assertThat(admin.pendingCount()).isEqualTo(50);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0))).isZero();
    RecordingPublisher healthy = new RecordingPublisher();
    OutboxRelay next = relay(healthy, RelayConfig.builder().batchSize(20).build());
    next.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.pendingCount() == 0);
    assertThat(healthy.publishCounts()).containsOnlyKeys(ids);
  }

  @Test
  void closeLetsTheInFlightBatchCommitWithinTheDeadline() throws Exception {
    List<UUID> ids = write(10, "finishing");
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RecordingPublisher recorder = new RecordingPublisher();
    Publisher slow =
        messages -> {
          entered.countDown();
          release.await();
          return recorder.publish(messages);
        };
    OutboxRelay relay = relay(slow, RelayConfig.defaults());
    relay.start();
    assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(() -> relay.close(Duration.ofSeconds(30)));
    closer.start();
    release.countDown();
    closer.join();

    assertThat(admin.pendingCount()).isZero();
    assertThat(recorder.publishCounts()).containsOnlyKeys(ids);
  }

  @Test
  void survivesAThrowingPublisherAndCarriesOn() {
    List<UUID> ids = writeEach(30, "survivor");
    AtomicInteger calls = new AtomicInteger();
    RecordingPublisher recorder = new RecordingPublisher();
    Publisher erratic =
        messages -> {
          int call = calls.incrementAndGet();
          if (call == 1) {
            throw new IllegalStateException("client exploded");
          }
          return recorder.publish(messages);
        };
    relay(
            erratic,
            RelayConfig.builder()
                .backoff(Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(10)))
                .build())
        .start();

    await().atMost(Duration.ofSeconds(30)).until(() -> admin.pendingCount() == 0);
    assertThat(recorder.publishCounts()).containsOnlyKeys(ids);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.eq(1))).isEqualTo(30);
  }

  @Test
  void aBatchOfFailuresWarnsAboutTenEventsThenSummarises() throws Exception {
    writeEach(15, "down");
    RecordingPublisher publisher =
        new RecordingPublisher().answer(m -> PublishResult.retryable("broker unavailable"));
    Logger relayLog = (Logger) LoggerFactory.getLogger("dev.txoutbox.relay");
    var appender = new ListAppender<ILoggingEvent>();
    appender.start();
    relayLog.addAppender(appender);
    Level before = relayLog.getLevel();
    relayLog.setLevel(Level.DEBUG);
    try {
      relay(publisher, RelayConfig.defaults()).runOnce();
    } finally {
      relayLog.setLevel(before);
      relayLog.detachAppender(appender);
    }

    var retries =
        appender.list.stream()
            .filter(e -> e.getFormattedMessage().contains("retrying in"))
            .toList();
    assertThat(retries).hasSize(15);
    assertThat(retries.stream().filter(e -> e.getLevel() == Level.WARN)).hasSize(10);
    assertThat(appender.list)
        .filteredOn(e -> e.getLevel() == Level.WARN)
        .extracting(e -> e.getFormattedMessage())
        .contains(
            "relay default: 5 more events of this batch failed and will be retried (each logged at DEBUG)");
  }

  @Test
  void survivesLostDatabaseConnections() {
    String app = "relay-" + UUID.randomUUID();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(2);
    config.addDataSourceProperty("ApplicationName", app);
    try (HikariDataSource relayPool = new HikariDataSource(config)) {
      RecordingPublisher publisher = new RecordingPublisher();
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(relayPool)
              .schema(db.schema())
              .publisher(publisher)
              .config(RelayConfig.builder().maxPollInterval(Duration.ofMillis(50)).build())
              .build();
      relays.add(relay);
      relay.start();
      List<UUID> first = write(5, "before");
      await().atMost(Duration.ofSeconds(30)).until(() -> admin.pendingCount() == 0);

      int killed =
          dsl.resultQuery(
                  "select count(pg_terminate_backend(pid)) from pg_stat_activity"
                      + " where application_name = ?",
                  app)
              .fetchOne(0, Integer.class);
      assertThat(killed).isPositive();
      List<UUID> second = write(5, "after");

      await().atMost(Duration.ofSeconds(30)).until(() -> admin.pendingCount() == 0);
      assertThat(publisher.publishCounts().keySet()).containsAll(first).containsAll(second);
      assertThat(relay.isRunning()).isTrue();
    }
  }

  @Test
  void wakeUpAfterCommitPublishesWithoutWaitingForThePoll() {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        relay(
            publisher,
            RelayConfig.builder()
                .minPollInterval(Duration.ofMinutes(5))
                .maxPollInterval(Duration.ofMinutes(5))
                .build());
    Outbox waking = Outbox.builder().schema(db.schema()).afterCommit(relay::wakeUp).build();
    DSLContext listening = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    listening.configuration().set(waking.transactionListener());
    relay.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> publisher.batches() == 0 && relay.isRunning());

    UUID id =
        listening.transactionResult(
            tx -> waking.record(tx.dsl(), "order", "w", "order.created", "{}"));

    // The relay polls every 5 minutes: only the wake-up can publish within this wait.
    await().atMost(Duration.ofSeconds(30)).until(() -> publisher.publishCounts().containsKey(id));
  }

  @Test
  void startTwiceOrAfterCloseIsRefusedAndCloseIsIdempotent() {
    OutboxRelay relay = relay(new RecordingPublisher(), RelayConfig.defaults());
    relay.start();
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("relay default must be NEW to start but was RUNNING");
    relay.close();
    relay.close();
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("relay default must be NEW to start but was CLOSED");
  }

  @Test
  void workerThreadsAreNamedAfterTheRelay() {
    OutboxRelay relay =
        relay(new RecordingPublisher(), RelayConfig.builder().name("billing").workers(2).build());
    relay.start();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .contains("outbox-relay-billing-worker-1", "outbox-relay-billing-worker-2");
  }

  @Test
  void builderRejectsMissingPiecesAndConfigRejectsBadValues() {
    assertThatThrownBy(() -> OutboxRelay.builder().publisher(new RecordingPublisher()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "the relay must be given exactly one of dataSource(...) or dsl(...) but was given"
                + " neither");
    assertThatThrownBy(
            () ->
                relayBuilder(new RecordingPublisher())
                    .dsl(DSL.using(db.dataSource(), SQLDialect.POSTGRES))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageEndingWith("but was given both");
    assertThatThrownBy(() -> OutboxRelay.builder().dataSource(db.dataSource()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the relay must be given a publisher(...) but was not");
    assertThatThrownBy(
            () ->
                OutboxRelay.builder()
                    .dsl(DSL.using(db.dataSource(), SQLDialect.POSTGRES))
                    .publisher(new RecordingPublisher())
                    .listenForNotifications(true)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "listenForNotifications(true) must be given dataSource(...) but was given dsl(...)");
    assertThatThrownBy(() -> RelayConfig.builder().batchSize(0).build())
        .hasMessageContaining("batchSize")
        .hasMessageContaining("10000");
    assertThatThrownBy(() -> RelayConfig.builder().workers(65).build())
        .hasMessageContaining("workers")
        .hasMessageContaining("64");
    assertThatThrownBy(() -> RelayConfig.builder().maxAttempts(0).build())
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(
            () ->
                RelayConfig.builder()
                    .minPollInterval(Duration.ofSeconds(2))
                    .maxPollInterval(Duration.ofSeconds(1))
                    .build())
        .hasMessageContaining("maxPollInterval");
    assertThatThrownBy(() -> RelayConfig.builder().name("has space").build())
        .hasMessageContaining("name");
    assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1)))
        .hasMessageContaining("initialDelay");
    assertThatThrownBy(() -> Backoff.defaults().withJitter(1.5)).hasMessageContaining("jitter");
  }
}
