package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.testing.TestMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * In the per-aggregate orderings the WAL relay publishes no event of an aggregate that has an
 * earlier pending event outside the batch: the polling relay in the same ordering publishes them
 * after it.
 */
class WalRelayOrderingTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  private static OutboxTables orderedOutbox(String prefix) {
    OutboxTables tables = LogicalServer.freshOutbox(prefix);
    OutboxSchema.migrateOrderingIndex(LogicalServer.dataSource(), tables);
    return tables;
  }

  private static RelayConfig config(Ordering ordering) {
    return WalTestKit.config(100).toBuilder()
        .ordering(ordering)
        .backoff(Backoff.exponential(Duration.ofMinutes(1), Duration.ofMinutes(1)).withJitter(0))
        .build();
  }

  /** Whether the relays left the event as it was written: no attempt, no time, not processed. */
  private static boolean untouched(OutboxTables tables, UUID id) {
    return LogicalServer.dsl(tables)
            .fetchCount(
                OUTBOX_EVENTS,
                OUTBOX_EVENTS
                    .ID
                    .eq(id)
                    .and(OUTBOX_EVENTS.ATTEMPTS.eq(0))
                    .and(OUTBOX_EVENTS.RETRY_AFTER.isNull())
                    .and(OUTBOX_EVENTS.PROCESSED_AT.isNull()))
        == 1;
  }

  /** One event of aggregate {@code a}, its id set in {@code id} before it commits. */
  private static UUID writeOne(OutboxTables tables, Outbox outbox, AtomicReference<UUID> id) {
    LogicalServer.dsl(tables)
        .transaction(c -> id.set(outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e", "{}"))));
    return Objects.requireNonNull(id.get());
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void aFailedEventHoldsBackItsAggregatesLaterEventsForThePollingRelay(Ordering ordering)
      throws Exception {
    OutboxTables tables = orderedOutbox("or_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicReference<UUID> failing = new AtomicReference<>();
    publisher.failWhen(m -> m.id().equals(failing.get()));
    WalRelay relay = kit.relay(tables, publisher, config(ordering));
    relay.start();
    List<UUID> a = new ArrayList<>(List.of(writeOne(tables, outbox, failing)));
    await().atMost(WAIT).until(() -> !publisher.failures().isEmpty());
    // Later WAL batches: a's later events, and b's, written last.
    a.addAll(write(tables, outbox, "a", 2));
    List<UUID> b = write(tables, outbox, "b", 2);
    await().atMost(WAIT).until(() -> publisher.published().size() == 2);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(b);
    assertThat(publisher.attempted())
        .extracting(OutboxMessage::id)
        .doesNotContain(a.get(1), a.get(2));
    assertThat(untouched(tables, a.get(1))).isTrue();
    assertThat(untouched(tables, a.get(2))).isTrue();
    await().atMost(WAIT).until(() -> relay.skippedEvents() == 2 && WalTestKit.pending(tables) == 3);

    // The polling relay in the same ordering, its clock past the backoff, publishes a in order.
    TestClock clock = TestClock.now();
    clock.advance(Duration.ofMinutes(2));
    RecordingPublisher sweeper = new RecordingPublisher();
    OutboxRelay polling = kit.polling(tables, sweeper, clock, ordering);
    assertThat(polling.drain().published()).containsExactlyElementsOf(a);
    assertThat(sweeper.publishedIds()).containsExactlyElementsOf(a);
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void aDeadLetterHaltsItsAggregateOnlyUnderPerAggregate(Ordering ordering) throws Exception {
    OutboxTables tables = orderedOutbox("dl_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicReference<UUID> dead = new AtomicReference<>();
    publisher.failWhen(m -> m.id().equals(dead.get()), PublishResult.permanent("rejected"));
    WalRelay relay = kit.relay(tables, publisher, config(ordering));
    relay.start();
    writeOne(tables, outbox, dead);
    DSLContext dsl = LogicalServer.dsl(tables);
    await()
        .atMost(WAIT)
        .until(
            () -> dsl.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull()) == 1);
    List<UUID> later = write(tables, outbox, "a", 2);
    List<UUID> other = write(tables, outbox, "b", 1);
    await().atMost(WAIT).until(() -> publisher.publishedIds().contains(other.get(0)));
    if (ordering == Ordering.PER_AGGREGATE) {
      assertThat(publisher.publishedIds()).containsExactlyElementsOf(other);
      assertThat(later).allMatch(id -> untouched(tables, id));
    } else {
      assertThat(publisher.publishedIds())
          .containsExactlyElementsOf(WalTestKit.concat(later, other));
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void aDelayedEventBetweenTwoDueOnesLeavesTheAggregateToThePollingRelay(Ordering ordering)
      throws Exception {
    OutboxTables tables = orderedOutbox("gap_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = kit.relay(tables, publisher, config(ordering));
    relay.start();
    TestClock clock = TestClock.now();
    List<UUID> a = new ArrayList<>();
    List<UUID> b = new ArrayList<>();
    // One transaction: a's e1 and e3 due, e2 in between delayed an hour; b's event due.
    LogicalServer.dsl(tables)
        .transaction(
            c -> {
              a.add(outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e1", "{}")));
              a.add(
                  outbox.record(
                      c.dsl(),
                      OutboxEvent.builder("order", "a", "e2")
                          .payload("{}")
                          .notBefore(clock.instant().plus(Duration.ofHours(1)))
                          .build()));
              a.add(outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e3", "{}")));
              b.add(outbox.record(c.dsl(), OutboxEvent.of("order", "b", "e", "{}")));
            });
    await().atMost(WAIT).until(() -> publisher.published().size() == 1);
    await().atMost(WAIT).until(() -> relay.skippedEvents() == 3);
    // Neither e1 nor e3 ran ahead of e2: the whole aggregate is the polling relay's.
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(b);
    assertThat(untouched(tables, a.get(0))).isTrue();
    assertThat(untouched(tables, a.get(2))).isTrue();

    clock.advance(Duration.ofHours(2));
    RecordingPublisher sweeper = new RecordingPublisher();
    OutboxRelay polling = kit.polling(tables, sweeper, clock, ordering);
    assertThat(polling.drain().published()).containsExactlyElementsOf(a);
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void aPendingEventMissingFromTheMiddleOfTheBatchBlocksItsAggregate(Ordering ordering) {
    OutboxTables tables = orderedOutbox("mid_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    // a: e1, e2, e3 pending, the batch holds e1 and e3 only; c: e1, e2, both in the batch.
    List<UUID> a = write(tables, outbox, "a", 3);
    write(tables, outbox, "c", 2);
    DSLContext dsl = LogicalServer.dsl(tables);
    List<OutboxMessage> whole =
        dsl.selectFrom(OUTBOX_EVENTS)
            .orderBy(OUTBOX_EVENTS.SEQ)
            .fetch(
                r ->
                    TestMessages.message()
                        .id(r.get(OUTBOX_EVENTS.ID))
                        .sequence(r.get(OUTBOX_EVENTS.SEQ))
                        .aggregateType(r.get(OUTBOX_EVENTS.AGGREGATE_TYPE))
                        .aggregateId(r.get(OUTBOX_EVENTS.AGGREGATE_ID))
                        .eventType(r.get(OUTBOX_EVENTS.EVENT_TYPE))
                        .build());
    List<OutboxMessage> batch = whole.stream().filter(m -> !m.id().equals(a.get(1))).toList();
    assertThat(batch).hasSize(4);
    assertThat(WalStore.blocked(dsl, batch, ordering))
        .containsExactly(new WalStore.Aggregate("order", "a"));
    // With e2 in the batch nothing is missing: nothing blocks.
    assertThat(WalStore.blocked(dsl, whole, ordering)).isEmpty();
  }

  @Test
  void underNoOrderingLaterEventsGoOnPastAFailedOne() throws Exception {
    OutboxTables tables = orderedOutbox("no_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    AtomicReference<UUID> failing = new AtomicReference<>();
    publisher.failWhen(m -> m.id().equals(failing.get()));
    WalRelay relay = kit.relay(tables, publisher, config(Ordering.NONE));
    relay.start();
    writeOne(tables, outbox, failing);
    await().atMost(WAIT).until(() -> !publisher.failures().isEmpty());
    List<UUID> later = write(tables, outbox, "a", 2);
    await().atMost(WAIT).until(() -> publisher.published().size() == 2);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(later);
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void theCheckOfEarlierEventsProbesTheOrderingIndexes(Ordering ordering) {
    OutboxTables tables = orderedOutbox("ex_");
    // A backlog of 20,000 events of 2,000 aggregates, some dead letters, with statistics; plain
    // SQL: jOOQ has no generate_series insert as short, and ANALYZE is outside its DSL.
    LogicalServer.execute(
        "INSERT INTO "
            + tables.schema()
            + ".ex_outbox_events (id, aggregate_type, aggregate_id, event_type, payload,"
            + " dead_lettered_at) SELECT gen_random_uuid(), 'order', 'o' || (i % 2000), 'e', '{}',"
            + " CASE WHEN i % 97 = 0 THEN now() END FROM generate_series(1, 20000) i");
    LogicalServer.execute("ANALYZE " + tables.schema() + ".ex_outbox_events");
    List<OutboxMessage> batch =
        IntStream.range(0, 50)
            .mapToObj(
                i ->
                    TestMessages.message()
                        .sequence(30_000L + i)
                        .aggregateId("o" + i)
                        .eventType("e")
                        .build())
            .toList();
    DSLContext dsl = LogicalServer.dsl(tables);
    String plan = dsl.explain(WalStore.blockedQuery(dsl, batch, ordering)).plan();
    assertThat(plan)
        .contains(tables.orderingIndex())
        .doesNotContain("Seq Scan on ex_outbox_events");
    if (ordering == Ordering.PER_AGGREGATE) {
      assertThat(plan).contains("ex_" + OutboxSchema.ORDERING_DEAD_LETTER_INDEX);
    }
    // Every aggregate of the batch has pending events before seq 30,000.
    assertThat(WalStore.blocked(dsl, batch, ordering)).hasSize(50);
  }

  @ParameterizedTest
  @EnumSource(Ordering.class)
  void aBatchCommitsWithoutWaitingForItsFlushAndPinsThePlanOfTheCheck(Ordering ordering)
      throws Exception {
    OutboxTables tables = orderedOutbox("st_");
    try (java.sql.Connection c = LogicalServer.dataSource().getConnection()) {
      DSLContext dsl = DSL.using(c, org.jooq.SQLDialect.POSTGRES, tables.settings(null));
      // On this session of the test's own, whatever the server's default.
      dsl.execute("SET synchronous_commit = on");
      dsl.transaction(
          t -> {
            new WalStatements(
                    dsl,
                    ordering,
                    java.time.Duration.ofMillis(2500),
                    dev.txoutbox.CompletionMode.MARK_PROCESSED)
                .settings(t.dsl());
            assertThat(setting(t.dsl(), "synchronous_commit")).isEqualTo("off");
            assertThat(setting(t.dsl(), "lock_timeout")).isEqualTo("2500ms");
            for (String name : RelayKernel.planSettings()) {
              assertThat(setting(t.dsl(), name))
                  .as(name)
                  .isEqualTo(
                      ordering == Ordering.NONE && !name.equals("enable_seqscan") ? "on" : "off");
            }
          });
      // Local to the transaction.
      assertThat(setting(dsl, "synchronous_commit")).isEqualTo("on");
      assertThat(setting(dsl, "enable_seqscan")).isEqualTo("on");
    }
  }

  private static String setting(DSLContext dsl, String name) {
    return dsl.select(DSL.function("current_setting", String.class, DSL.inline(name)))
        .fetchSingle()
        .value1();
  }
}
