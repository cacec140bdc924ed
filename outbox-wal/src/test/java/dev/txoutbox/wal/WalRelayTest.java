package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.RecordingPublisher;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The WAL relay against a real server with {@code wal_level=logical}, started by the tests. */
class WalRelayTest {

  private static final Duration WAIT = WalTestKit.WAIT;

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  private WalRelay relay(OutboxTables tables, Publisher publisher, RelayConfig config) {
    return kit.relay(tables, publisher, config);
  }

  private static RelayConfig config(int batchSize) {
    return WalTestKit.config(batchSize);
  }

  private static List<UUID> write(OutboxTables tables, Outbox outbox, String aggregate, int n) {
    return WalTestKit.write(tables, outbox, aggregate, n);
  }

  private static int pending(OutboxTables tables) {
    return WalTestKit.pending(tables);
  }

  @Test
  void publishesInCommitOrderAcrossConcurrentWriters() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("co_");
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = relay(tables, publisher, config(50));
    relay.start();
    // A second slot on the same publication, read after the run: the server's own commit order.
    String truth = "truth_" + tables.schema();
    LogicalServer.execute(WalSetup.createSlotSql(truth));

    Outbox outbox = Outbox.builder().tables(tables).lockPerAggregate(true).build();
    DSLContext dsl = LogicalServer.dsl(tables);
    Map<Long, List<UUID>> byXid = new java.util.concurrent.ConcurrentHashMap<>();
    int writers = 4;
    int transactions = 40;
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      int writer = w;
      done.add(
          pool.submit(
              () -> {
                go.await();
                for (int t = 0; t < transactions; t++) {
                  int tx = t;
                  dsl.transaction(
                      c -> {
                        long xid =
                            c.dsl()
                                .fetchSingle("select txid_current() % 4294967296")
                                .get(0, Long.class);
                        List<UUID> ids = new ArrayList<>();
                        // Three aggregates shared by every writer, locked in one order.
                        List<String> aggregates = new ArrayList<>();
                        for (int e = 0; e <= tx % 3; e++) {
                          aggregates.add("a" + ((writer + tx + e) % 3));
                        }
                        Collections.sort(aggregates);
                        for (String aggregate : aggregates) {
                          ids.add(
                              outbox.record(
                                  c.dsl(),
                                  OutboxEvent.of(
                                      "order", aggregate, "w" + writer + "-" + tx, "{}")));
                        }
                        byXid.put(xid, ids);
                      });
                }
                return null;
              }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    int total = byXid.values().stream().mapToInt(List::size).sum();
    await().atMost(WAIT).until(() -> publisher.published().size() >= total);

    List<Long> commitOrder = new ArrayList<>();
    // The slot function: no jOOQ model for it.
    for (Record r :
        dsl.fetch(
            "select data from pg_logical_slot_get_binary_changes(?, NULL, NULL, 'proto_version',"
                + " '1', 'publication_names', ?)",
            truth,
            relay.publicationName())) {
      PgOutput.Message m = PgOutput.decode(ByteBuffer.wrap(r.get(0, byte[].class)));
      if (m instanceof PgOutput.Begin b && byXid.containsKey(Integer.toUnsignedLong(b.xid()))) {
        commitOrder.add(Integer.toUnsignedLong(b.xid()));
      }
    }
    LogicalServer.execute("SELECT pg_drop_replication_slot('" + truth + "')");
    assertThat(commitOrder).hasSize(writers * transactions);
    List<UUID> expected = new ArrayList<>();
    for (long xid : commitOrder) {
      expected.addAll(byXid.get(xid));
    }
    List<UUID> seen = publisher.publishedIds();
    assertThat(seen).hasSize(total).containsExactlyElementsOf(expected);
    // Per aggregate: the order of seq (the writer locks the aggregate) is the order published.
    Map<String, List<Long>> perAggregate = new HashMap<>();
    for (OutboxMessage m : publisher.published()) {
      perAggregate.computeIfAbsent(m.aggregateId(), k -> new ArrayList<>()).add(m.sequence());
    }
    assertThat(perAggregate).hasSize(3);
    perAggregate.values().forEach(seqs -> assertThat(seqs).isSorted());
    await().atMost(WAIT).until(() -> pending(tables) == 0);
  }

  @Test
  void aRelayStoppedMidBatchLosesNothingAndTheNextRepeatsOnlyThatBatch() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("ab_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    CountDownLatch blocked = new CountDownLatch(1);
    List<OutboxMessage> firstSent = new CopyOnWriteArrayList<>();
    int[] batches = {0};
    Publisher hangsOnThirdBatch =
        messages -> {
          firstSent.addAll(messages);
          if (++batches[0] == 3) {
            blocked.countDown();
            new CountDownLatch(1).await(); // until the relay is stopped: the broker has them
          }
          return messages.stream().map(m -> PublishResult.published()).toList();
        };
    WalRelay first = relay(tables, hangsOnThirdBatch, config(10));
    first.start();
    List<UUID> ids = new ArrayList<>();
    DSLContext dsl = LogicalServer.dsl(tables);
    for (int t = 0; t < 10; t++) {
      int tt = t;
      dsl.transaction(
          c -> {
            for (int e = 0; e < 10; e++) {
              ids.add(outbox.record(c.dsl(), OutboxEvent.of("order", "o" + tt, "e" + e, "{}")));
            }
          });
    }
    assertThat(blocked.await(30, TimeUnit.SECONDS)).isTrue();
    first.abort(); // the replication connection closes, nothing more is confirmed
    assertThat(firstSent).hasSize(30);
    long publishedBefore =
        LogicalServer.dsl(tables).fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNotNull());
    assertThat(publishedBefore).isEqualTo(20);

    RecordingPublisher second = new RecordingPublisher();
    WalRelay next = relay(tables, second, config(10));
    next.start();
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    Map<UUID, Integer> counts = new HashMap<>();
    firstSent.forEach(m -> counts.merge(m.id(), 1, Integer::sum));
    second.published().forEach(m -> counts.merge(m.id(), 1, Integer::sum));
    assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    List<UUID> duplicated =
        counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
    // Exactly the batch in flight is sent twice; the first two batches, committed, are not again.
    assertThat(duplicated)
        .containsExactlyInAnyOrderElementsOf(
            firstSent.subList(20, 30).stream().map(OutboxMessage::id).toList());
    assertThat(second.publishedIds()).hasSize(80);
  }

  @Test
  void anUnreadableRowDoesNotStopTheStreamAndThePollingRelayDeadLettersIt() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("ur_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = relay(tables, publisher, config(100));
    relay.start();
    List<UUID> before = write(tables, outbox, "good", 2);
    // Written past the writer, as an operator's SQL could: headers that are not an object.
    UUID unreadable = UUID.randomUUID();
    DSLContext dsl = LogicalServer.dsl(tables);
    dsl.insertInto(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.ID, unreadable)
        .set(OUTBOX_EVENTS.AGGREGATE_TYPE, "order")
        .set(OUTBOX_EVENTS.AGGREGATE_ID, "odd")
        .set(OUTBOX_EVENTS.EVENT_TYPE, "e")
        .set(OUTBOX_EVENTS.PAYLOAD, org.jooq.JSONB.valueOf("{}"))
        .set(OUTBOX_EVENTS.HEADERS, org.jooq.JSONB.valueOf("[1]"))
        .execute();
    List<UUID> after = write(tables, outbox, "good", 2);

    await().atMost(WAIT).until(() -> publisher.published().size() == 4);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(concat(before, after));
    await().atMost(WAIT).until(() -> relay.skippedEvents() == 1);
    assertThat(relay.reconnects()).isZero();
    assertThat(pending(tables)).isEqualTo(1);
    assertThat(WalTestKit.touched(tables)).as("rows with an attempt or a retry time").isZero();

    // The polling relay cannot read it either, and makes it a dead letter an operator sees.
    polling(tables, publisher, java.time.Clock.systemUTC()).start();
    await()
        .atMost(WAIT)
        .until(
            () ->
                dsl.fetchExists(
                    OUTBOX_EVENTS,
                    OUTBOX_EVENTS
                        .ID
                        .eq(unreadable)
                        .and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull())));
    assertThat(
            dsl.select(OUTBOX_EVENTS.LAST_ERROR)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(unreadable))
                .fetchSingle(OUTBOX_EVENTS.LAST_ERROR))
        .startsWith("unreadable row");
    assertThat(publisher.publishedIds()).doesNotContain(unreadable);
  }

  @Test
  void aFailedEventStaysPendingAndThePollingRelayPublishesIt() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("fa_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    publisher.failWhen(m -> m.aggregateId().equals("bad"));
    RelayConfig config =
        config(100).toBuilder()
            .backoff(
                Backoff.exponential(Duration.ofMinutes(1), Duration.ofMinutes(1)).withJitter(0))
            .build();
    WalRelay relay = relay(tables, publisher, config);
    relay.start();
    List<UUID> good = write(tables, outbox, "good", 3);
    // One transaction, so one batch: the rule below is the batch's (a later batch attempts a
    // follower whose predecessor failed, in an unordered relay).
    List<UUID> bad =
        LogicalServer.dsl(tables)
            .transactionResult(
                c ->
                    outbox.recordAll(
                        c.dsl(),
                        List.of(
                            OutboxEvent.of("order", "bad", "e0", "{}"),
                            OutboxEvent.of("order", "bad", "e1", "{}"))));
    List<UUID> after = write(tables, outbox, "good", 1);
    await().atMost(WAIT).until(() -> publisher.published().size() == 4 && pending(tables) == 2);
    assertThat(publisher.publishedIds())
        .containsExactly(good.get(0), good.get(1), good.get(2), after.get(0));
    DSLContext dsl = LogicalServer.dsl(tables);
    Record failed =
        dsl.select(OUTBOX_EVENTS.ATTEMPTS, OUTBOX_EVENTS.RETRY_AFTER, OUTBOX_EVENTS.LAST_ERROR)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(bad.get(0)))
            .fetchSingle();
    assertThat(failed.get(OUTBOX_EVENTS.ATTEMPTS)).isEqualTo(1);
    assertThat(failed.get(OUTBOX_EVENTS.RETRY_AFTER))
        .isAfter(java.time.OffsetDateTime.now().plusSeconds(30));
    assertThat(failed.get(OUTBOX_EVENTS.LAST_ERROR)).isEqualTo(RecordingPublisher.SCRIPTED_FAILURE);
    // Its follower in the same aggregate was not attempted, and waits behind it.
    Record follower =
        dsl.select(OUTBOX_EVENTS.ATTEMPTS, OUTBOX_EVENTS.RETRY_AFTER)
            .from(OUTBOX_EVENTS)
            .where(OUTBOX_EVENTS.ID.eq(bad.get(1)))
            .fetchSingle();
    assertThat(follower.get(OUTBOX_EVENTS.ATTEMPTS)).isZero();
    assertThat(follower.get(OUTBOX_EVENTS.RETRY_AFTER))
        .isEqualTo(failed.get(OUTBOX_EVENTS.RETRY_AFTER));

    // The polling relay, whose clock has reached the retry time, publishes both.
    dev.txoutbox.testing.TestClock clock = dev.txoutbox.testing.TestClock.now();
    clock.advance(Duration.ofMinutes(2));
    RecordingPublisher sweeper = new RecordingPublisher();
    OutboxRelay polling = polling(tables, sweeper, clock);
    OutboxRelay.DrainResult drained = polling.drain();
    assertThat(drained.published()).containsExactlyInAnyOrderElementsOf(bad);
    assertThat(pending(tables)).isZero();
    assertThat(sweeper.published().get(0).attempt()).isEqualTo(2);
  }

  @Test
  void oneBrokerDownPostponesOnlyItsEventsWithoutAnAttemptForThePollingRelay() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("bo_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    // As behind a RoutingPublisher whose one broker is down: the batch is answered in part.
    RecordingPublisher partly = new RecordingPublisher();
    partly.failWhen(
        m -> m.aggregateId().equals("down"), PublishResult.brokerUnavailable("connection refused"));
    WalRelay relay = relay(tables, partly, config(100));
    relay.start();
    List<UUID> up = new ArrayList<>();
    List<UUID> down = new ArrayList<>();
    LogicalServer.dsl(tables)
        .transaction(
            c -> {
              for (int i = 0; i < 3; i++) {
                up.add(outbox.record(c.dsl(), OutboxEvent.of("order", "up", "e", "{}")));
                down.add(outbox.record(c.dsl(), OutboxEvent.of("order", "down", "e", "{}")));
              }
            });
    DSLContext dsl = LogicalServer.dsl(tables);
    await().atMost(WAIT).until(() -> pending(tables) == 3);
    assertThat(partly.publishedIds()).containsExactlyElementsOf(up);
    assertThat(
            dsl.fetchCount(
                OUTBOX_EVENTS,
                OUTBOX_EVENTS
                    .ID
                    .in(down)
                    .and(OUTBOX_EVENTS.RETRY_AFTER.isNotNull())
                    .and(OUTBOX_EVENTS.ATTEMPTS.eq(0))))
        .isEqualTo(3);

    dev.txoutbox.testing.TestClock clock = dev.txoutbox.testing.TestClock.now();
    clock.advance(Duration.ofMinutes(1));
    RecordingPublisher back = new RecordingPublisher();
    OutboxRelay polling = polling(tables, back, clock);
    assertThat(polling.drain().published()).containsExactlyElementsOf(down);
    assertThat(back.published()).allMatch(m -> m.attempt() == 1);
  }

  @Test
  void aDroppedSlotIsCreatedAnewAtStartWhichPublishesWhatItMissedFirst() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("dr_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = relay(tables, publisher, config(100));
    relay.start();
    List<UUID> before = write(tables, outbox, "o", 3);
    await().atMost(WAIT).until(() -> publisher.published().size() == 3);
    relay.close();
    long lagBefore = relay.slotLagBytes();
    List<UUID> whileStopped = write(tables, outbox, "other", 1);
    assertThat(relay.slotLagBytes()).isGreaterThan(lagBefore).isGreaterThan(0);
    LogicalServer.execute("SELECT pg_drop_replication_slot('" + relay.slotName() + "')");
    assertThat(relay.slotLagBytes()).isEqualTo(-1);
    List<UUID> missed = write(tables, outbox, "o", 2);

    // The start that creates the slot anew publishes the events pending then, in seq order.
    WalRelay again = relay(tables, publisher, config(100));
    again.start();
    assertThat(publisher.published()).hasSize(6);
    List<UUID> later = write(tables, outbox, "o", 2);
    await().atMost(WAIT).until(() -> publisher.published().size() == 8);
    assertThat(publisher.publishedIds())
        .containsExactlyElementsOf(concat(concat(before, concat(whileStopped, missed)), later));

    RecordingPublisher sweeper = new RecordingPublisher();
    OutboxRelay polling = polling(tables, sweeper, java.time.Clock.systemUTC());
    assertThat(polling.drain().published()).isEmpty();
    assertThat(pending(tables)).isZero();
  }

  @Test
  void eventsThePollingRelayAlreadyPublishedAreNotPublishedAgain() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("sw_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = relay(tables, publisher, config(100));
    // Slot and publication first, so that the stream holds the events written next.
    relay.start();
    relay.close();
    List<UUID> swept = write(tables, outbox, "o", 3);
    RecordingPublisher sweeper = new RecordingPublisher();
    OutboxRelay polling = polling(tables, sweeper, java.time.Clock.systemUTC());
    assertThat(polling.drain().published()).containsExactlyElementsOf(swept);
    List<UUID> fresh = write(tables, outbox, "o", 1);
    WalRelay again = relay(tables, publisher, config(100));
    again.start();
    await().atMost(WAIT).until(() -> publisher.published().size() == 1);
    await().atMost(WAIT).until(() -> again.skippedEvents() == 3);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(fresh);
  }

  @Test
  void withinTheMinimumBatchIntervalABatchGathersCommitsUntilItIsFull() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("lg_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    List<List<UUID>> calls = new CopyOnWriteArrayList<>();
    Publisher publisher =
        messages -> {
          calls.add(messages.stream().map(OutboxMessage::id).toList());
          return messages.stream().map(m -> PublishResult.published()).toList();
        };
    // The longest interval, which the five commits below take a fraction of: after the first
    // batch, only a full one goes.
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, config(5))
                .minBatchInterval(WalRelay.MAX_MIN_BATCH_INTERVAL));
    relay.start();
    List<UUID> first = write(tables, outbox, "o", 1);
    await().atMost(WAIT).until(() -> calls.size() == 1); // the first after a quiet spell: at once
    List<UUID> next = new ArrayList<>();
    for (int t = 0; t < 5; t++) {
      next.addAll(write(tables, outbox, "o", 1));
      String written = walPosition();
      // Each commit reaches the relay before the next (the server sent it), not all in one read.
      await().atMost(WAIT).until(() -> sentPast(relay.slotName(), written));
    }
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(calls).containsExactly(first, next);
  }

  /** The server's WAL position now. */
  private static String walPosition() {
    return LogicalServer.dsl(OutboxTables.defaults())
        .fetchSingle("SELECT pg_current_wal_lsn()::text")
        .get(0, String.class);
  }

  /** Whether the server has sent the stream of {@code slot} up to {@code position}. */
  private static boolean sentPast(String slot, String position) {
    // Statistics views without a generated model: plain SQL.
    return LogicalServer.dsl(OutboxTables.defaults())
        .fetchOptional(
            "SELECT r.sent_lsn >= ?::pg_lsn FROM pg_stat_replication r"
                + " JOIN pg_replication_slots s ON s.active_pid = r.pid WHERE s.slot_name = ?",
            position,
            slot)
        .map(r -> r.get(0, Boolean.class))
        .orElse(false);
  }

  @Test
  void aBatchThatIsNotFullIsPublishedOnceTheMinimumBatchIntervalRanOut() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("lo_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(tables, publisher, config(100))
                .minBatchInterval(Duration.ofMillis(200)));
    relay.start();
    List<UUID> first = write(tables, outbox, "o", 1);
    await().atMost(WAIT).until(() -> publisher.published().size() == 1);
    List<UUID> second = write(tables, outbox, "o", 1);
    await().atMost(WAIT).until(() -> pending(tables) == 0);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(concat(first, second));
  }

  @Test
  void refusesANegativeMinimumBatchInterval() {
    assertThatThrownBy(() -> WalRelay.builder().minBatchInterval(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minBatchInterval must not be negative but was PT-0.001S");
  }

  @Test
  void refusesAMinimumBatchIntervalPastTheLongest() {
    WalRelayBuilder b = WalRelay.builder().minBatchInterval(WalRelay.MAX_MIN_BATCH_INTERVAL);
    assertThatThrownBy(() -> b.minBatchInterval(Duration.ofMillis(1001)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minBatchInterval must be at most 1s but was PT1.001S");
  }

  @Test
  void refusesAMissingSlotWhenCreatingIsOffShowingTheSql() {
    OutboxTables tables = LogicalServer.freshOutbox("no_");
    WalRelay relay = strictRelay(tables);
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("publication txoutbox_no_wal_")
        .hasMessageContaining(
            "CREATE PUBLICATION \"txoutbox_no_"
                + tables.schema()
                + "\" FOR TABLE \""
                + tables.schema()
                + "\".\"no_outbox_events\" WITH (publish = 'insert')");
    LogicalServer.execute(WalSetup.createPublicationSql(relay.publicationName(), tables));
    WalRelay second = strictRelay(tables);
    assertThatThrownBy(second::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(
            "replication slot txoutbox_no_"
                + tables.schema()
                + " does not exist and creating it is off: run SELECT"
                + " pg_create_logical_replication_slot('txoutbox_no_"
                + tables.schema()
                + "', 'pgoutput')");
  }

  @Test
  void refusesAPublicationThatPublishesUpdates() {
    OutboxTables tables = LogicalServer.freshOutbox("up_");
    String name = WalRelay.defaultName(tables);
    LogicalServer.execute(
        "CREATE PUBLICATION "
            + name
            + " FOR TABLE "
            + tables.schema()
            + ".up_outbox_events WITH (publish = 'insert, update')");
    WalRelay relay = relay(tables, new RecordingPublisher(), config(10));
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("publishes updates or deletes");
  }

  private OutboxRelay polling(
      OutboxTables tables, RecordingPublisher publisher, java.time.Clock clock) {
    return kit.polling(tables, publisher, clock);
  }

  /** A relay that creates neither the publication nor the slot. */
  private WalRelay strictRelay(OutboxTables tables) {
    WalRelayBuilder relay =
        WalRelay.builder()
            .sweeper(false) // no polling relay behind it in this test
            .dataSource(LogicalServer.dataSource())
            .replicationUrl(LogicalServer.jdbcUrl(), LogicalServer.credentials())
            .tables(tables)
            .publisher(new RecordingPublisher())
            .createIfMissing(false);
    return kit.relay(relay);
  }

  private static List<UUID> concat(List<UUID> a, List<UUID> b) {
    return WalTestKit.concat(a, b);
  }
}
