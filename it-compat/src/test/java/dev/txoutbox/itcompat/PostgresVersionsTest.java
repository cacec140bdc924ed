package dev.txoutbox.itcompat;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.CompletionMode;
import dev.txoutbox.DeadLetterSelector;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalRelayBuilder;
import java.io.IOException;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The version-sensitive paths of txoutbox on each PostgreSQL major version: the server of each
 * version is started once, every test runs against it, and it is closed after them. Each test names
 * the SQL it depends on; together they cover every statement kind the writer, both relays and the
 * admin send (see the module README's table).
 */
@ParameterizedClass(name = "PostgreSQL {0}")
@MethodSource("majors")
class PostgresVersionsTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** The server of the current version: one at a time. */
  private static LogicalServer server;

  @Parameter int major;

  private final List<AutoCloseable> relays = new ArrayList<>();

  static List<Integer> majors() {
    return CompatPostgres.majors();
  }

  @BeforeParameterizedClassInvocation
  static void start(int major) throws IOException {
    server = CompatPostgres.start(major);
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private static DSLContext dsl() {
    return DSL.using(server.dataSource(), SQLDialect.POSTGRES);
  }

  private static OutboxTables freshOutbox(String name) {
    return CompatPostgres.freshOutbox(server, name);
  }

  @AfterEach
  void closeRelays() throws Exception {
    Exception first = null;
    for (AutoCloseable relay : relays) {
      try {
        relay.close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        }
      }
    }
    relays.clear();
    if (first != null) {
      throw first;
    }
  }

  private <T extends AutoCloseable> T closing(T relay) {
    relays.add(relay);
    return relay;
  }

  private OutboxRelay polling(OutboxTables tables, RecordingPublisher publisher, RelayConfig c) {
    return closing(
        OutboxRelay.builder()
            .dataSource(server.dataSource())
            .tables(tables)
            .publisher(publisher)
            .config(c)
            .build());
  }

  /**
   * A WAL relay on {@code tables}, reconnecting quickly, with its sweeper: it starts one sweep
   * interval after the stream, so it does not race the commit order these tests check.
   */
  private WalRelayBuilder walRelay(OutboxTables tables, RecordingPublisher publisher) {
    return WalRelay.builder()
        .dataSource(server.dataSource())
        .replicationUrl(server.jdbcUrl(), server.credentials())
        .tables(tables)
        .publisher(publisher)
        .config(RelayConfig.builder().name("compat-wal").build())
        .reconnectDelay(Duration.ofMillis(50));
  }

  private static List<OutboxEvent> events(String aggregate, int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> OutboxEvent.of("order", aggregate, "e" + i, "{\"n\": " + i + "}"))
        .toList();
  }

  private List<UUID> recordAll(Outbox outbox, List<OutboxEvent> events) {
    List<UUID> ids = new ArrayList<>();
    dsl().transaction(c -> ids.addAll(outbox.recordAll(c.dsl(), events)));
    return ids;
  }

  private int count(OutboxTables tables) {
    return dsl().fetchCount(DSL.table(DSL.name(tables.schema(), tables.eventsTable())));
  }

  @Test
  void runsOnTheMajorVersionItIsNamedAfter() {
    int versionNum =
        Integer.parseInt(dsl().fetchSingle("SHOW server_version_num").get(0, String.class));
    assertThat(versionNum / 10_000).isEqualTo(major);
  }

  /**
   * Flyway's PostgreSQL support, identity columns, partial indexes, jsonb, a view, and the notify
   * trigger's plpgsql; each migration applies once.
   */
  @Test
  void migrationsCreateTheTablesTriggerAndOrderingIndexesOnce() {
    OutboxTables tables = freshOutbox("migrate");
    assertThat(OutboxSchema.migrate(server.dataSource(), tables)).isZero();
    assertThat(OutboxSchema.migrateNotifyTrigger(server.dataSource(), tables)).isPositive();
    assertThat(OutboxSchema.migrateOrderingIndex(server.dataSource(), tables)).isPositive();
    assertThat(OutboxSchema.migrateOrderingIndex(server.dataSource(), tables)).isZero();
    for (String relation :
        List.of(
            tables.eventsTable(),
            tables.processedEventsTable(),
            tables.deadLettersView(),
            tables.orderingIndex(),
            tables.orderingDeadLetterIndex())) {
      assertThat(
              dsl()
                  .fetchSingle("SELECT to_regclass(?)::text", tables.schema() + "." + relation)
                  .get(0, String.class))
          .as(relation)
          .isNotNull();
    }
  }

  /** INSERT … RETURNING through jOOQ, multi-row INSERTs, jsonb and uuid binding. */
  @Test
  void theWriterRecordsInTheCallersTransactionAndARollbackLeavesNothing() {
    OutboxTables tables = freshOutbox("writer");
    Outbox outbox = Outbox.builder().tables(tables).build();
    UUID one =
        dsl()
            .transactionResult(
                c ->
                    outbox.record(
                        c.dsl(),
                        OutboxEvent.builder("order", "a", "created")
                            .payload("{\"total\": 12.5, \"note\": \"é\"}")
                            .header("tenant", "t1")
                            .build()));
    List<UUID> many = recordAll(outbox, events("b", 3));
    try {
      dsl()
          .transaction(
              c -> {
                outbox.recordAll(c.dsl(), events("c", 2));
                throw new IllegalStateException("roll back");
              });
    } catch (IllegalStateException expected) {
      // the transaction rolled back
    }

    DSLContext read = DSL.using(server.dataSource(), SQLDialect.POSTGRES, tables.settings(null));
    assertThat(
            read.select(OUTBOX_EVENTS.ID)
                .from(OUTBOX_EVENTS)
                .orderBy(OUTBOX_EVENTS.SEQ)
                .fetch(OUTBOX_EVENTS.ID))
        .containsExactly(one, many.get(0), many.get(1), many.get(2));
    var row = read.selectFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(one)).fetchSingle();
    assertThat(row.getPayload().data()).contains("\"note\": \"é\"");
    assertThat(row.getHeaders().data()).contains("\"tenant\": \"t1\"");
  }

  /**
   * The claim ({@code FOR UPDATE SKIP LOCKED} on the partial indexes) and completion in both modes
   * ({@code UPDATE … WHERE id = ANY(?::uuid[])} or {@code DELETE}).
   */
  @ParameterizedTest
  @EnumSource(CompletionMode.class)
  void thePollingRelayDrainsEveryEventInOrder(CompletionMode mode) throws Exception {
    OutboxTables tables = freshOutbox("drain_" + mode.name().toLowerCase());
    Outbox outbox = Outbox.builder().tables(tables).build();
    List<UUID> ids = recordAll(outbox, events("a", 250));
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        polling(
            tables,
            publisher,
            RelayConfig.builder().name("drain").batchSize(100).completionMode(mode).build());

    assertThat(relay.drain().published()).containsExactlyElementsOf(ids);
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(ids);
    assertThat(relay.admin().pendingCount()).isZero();
    assertThat(count(tables))
        .isEqualTo(
            switch (mode) {
              case MARK_PROCESSED -> ids.size();
              case DELETE -> 0;
            });
  }

  /**
   * The ordered claim (a CTE over the ordering index finding each aggregate's head): an aggregate
   * whose first event failed publishes nothing after it until it succeeds, the others go on.
   */
  @Test
  void perAggregateOrderingHoldsAnAggregateBehindItsFailedEvent() throws Exception {
    OutboxTables tables = freshOutbox("ordered");
    OutboxSchema.migrateOrderingIndex(server.dataSource(), tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    List<UUID> ids =
        recordAll(
            outbox,
            List.of(
                OutboxEvent.of("order", "a", "a1", "{}"),
                OutboxEvent.of("order", "b", "b1", "{}"),
                OutboxEvent.of("order", "a", "a2", "{}"),
                OutboxEvent.of("order", "b", "b2", "{}"),
                OutboxEvent.of("order", "a", "a3", "{}")));
    UUID a1 = ids.get(0);
    RecordingPublisher publisher = new RecordingPublisher().failWhen(m -> m.id().equals(a1));
    TestClock clock = TestClock.now();
    OutboxRelay relay =
        closing(
            OutboxRelay.builder()
                .dataSource(server.dataSource())
                .tables(tables)
                .publisher(publisher)
                .clock(clock)
                .config(
                    RelayConfig.builder()
                        .name("ordered")
                        .batchSize(2)
                        .ordering(Ordering.PER_AGGREGATE)
                        .backoff(
                            Backoff.exponential(Duration.ofMinutes(1), Duration.ofMinutes(1))
                                .withJitter(0))
                        .build())
                .build());

    assertThat(relay.drain().published()).containsExactly(ids.get(1), ids.get(3));
    // a2 may reach the publisher in a1's run, held back there; it is never published before a1.
    assertThat(publisher.publishedIds()).containsExactly(ids.get(1), ids.get(3));

    publisher.clearFailures();
    clock.advance(Duration.ofMinutes(2));
    assertThat(relay.drain().published()).containsExactly(a1, ids.get(2), ids.get(4));
    assertThat(publisher.publishedIds())
        .containsExactly(ids.get(1), ids.get(3), a1, ids.get(2), ids.get(4));
  }

  /**
   * The admin's aggregates and bulk changes: counts with FILTER, dead-letter grouping, chunked
   * requeue / purge / cleanup through {@code ctid} sub-selects.
   */
  @Test
  void theAdminReportsRequeuesPurgesAndCleansUp() throws Exception {
    OutboxTables tables = freshOutbox("admin");
    Outbox outbox = Outbox.builder().tables(tables).build();
    List<UUID> bad =
        recordAll(
            outbox,
            IntStream.range(0, 3)
                .mapToObj(i -> OutboxEvent.of("order", "bad", "refused", "{}"))
                .toList());
    recordAll(outbox, List.of(OutboxEvent.of("order", "ok", "fine", "{}")));
    RecordingPublisher publisher =
        new RecordingPublisher()
            .failWhen(m -> m.aggregateId().equals("bad"), PublishResult.permanent("rejected"));
    OutboxRelay relay = polling(tables, publisher, RelayConfig.builder().name("admin").build());
    relay.drain();
    TestClock clock = TestClock.now();
    OutboxAdmin admin =
        OutboxAdmin.builder().dataSource(server.dataSource()).tables(tables).clock(clock).build();

    assertThat(admin.status().deadLetters()).isEqualTo(3);
    assertThat(admin.status().pending()).isZero();
    assertThat(admin.deadLetterGroups()).hasSize(1);
    assertThat(admin.requeue(DeadLetterSelector.ids(bad.get(0)))).isEqualTo(1);
    publisher.clearFailures();
    assertThat(relay.drain().published()).containsExactly(bad.get(0));
    assertThat(admin.purge(DeadLetterSelector.all())).isEqualTo(2);
    assertThat(admin.deadLetterCount()).isZero();

    clock.advance(Duration.ofDays(2));
    assertThat(admin.cleanupProcessed(Duration.ofDays(1))).isEqualTo(2);
    assertThat(count(tables)).isZero();
  }

  /**
   * Logical replication: a publication ({@code publish = 'insert'}), a pgoutput slot (protocol 1),
   * {@code pg_replication_slots.wal_status} / {@code safe_wal_size} and {@code
   * pg_current_snapshot()} (13+). A transaction that inserted first but committed last is published
   * last; the sweeper publishes the event written before the slot existed.
   */
  @Test
  void theWalRelayPublishesWhatCameBeforeItsSlotFirstThenInCommitOrder() throws Exception {
    OutboxTables tables = freshOutbox("wal");
    Outbox outbox = Outbox.builder().tables(tables).build();
    UUID before = recordAll(outbox, events("early", 1)).get(0);
    RecordingPublisher publisher = new RecordingPublisher();
    closing(walRelay(tables, publisher).build()).start();

    UUID insertedFirst;
    UUID committedFirst;
    try (Connection first = server.dataSource().getConnection();
        Connection second = server.dataSource().getConnection()) {
      first.setAutoCommit(false);
      second.setAutoCommit(false);
      insertedFirst =
          outbox.record(
              DSL.using(first, SQLDialect.POSTGRES), OutboxEvent.of("order", "x", "late", "{}"));
      committedFirst =
          outbox.record(
              DSL.using(second, SQLDialect.POSTGRES), OutboxEvent.of("order", "y", "soon", "{}"));
      second.commit();
      first.commit();
    }

    // The event written before the slot existed is published at start, ahead of the stream.
    await().atMost(WAIT).until(() -> publisher.published().size() == 3);
    assertThat(publisher.publishedIds()).containsExactly(before, committedFirst, insertedFirst);
    OutboxAdmin admin =
        OutboxAdmin.builder().dataSource(server.dataSource()).tables(tables).build();
    await().atMost(WAIT).until(() -> admin.pendingCount() == 0);
  }

  /**
   * The WAL relay's per-aggregate check of each batch: {@code EXISTS} probes of the ordering
   * indexes for an earlier event of the batch's aggregates that is pending or a dead letter, under
   * {@code pg_current_snapshot()}. Events of two aggregates, one transaction each, interleaved.
   */
  @Test
  void theWalRelayInPerAggregateOrderingPublishesEachAggregateInCommitOrder() throws Exception {
    OutboxTables tables = freshOutbox("wal_ordered");
    OutboxSchema.migrateOrderingIndex(server.dataSource(), tables);
    RecordingPublisher publisher = new RecordingPublisher();
    closing(
            walRelay(tables, publisher)
                .config(
                    RelayConfig.builder()
                        .name("compat-wal-ordered")
                        .ordering(Ordering.PER_AGGREGATE)
                        .build())
                .build())
        .start();
    Outbox outbox = Outbox.builder().tables(tables).build();
    List<UUID> ids = new ArrayList<>();
    for (String aggregate : List.of("a", "b", "a", "b", "a")) {
      ids.addAll(recordAll(outbox, List.of(OutboxEvent.of("order", aggregate, "e", "{}"))));
    }

    await().atMost(WAIT).until(() -> publisher.published().size() == ids.size());
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(ids);
  }

  /**
   * PostgreSQL 17's failover slots: the relay creates its slot without the option, but takes a slot
   * an operator created with {@code failover => true} as it is (before 17 the five-argument
   * function does not exist). Synchronising it to a standby is the servers' configuration.
   */
  @Test
  void aSlotCreatedWithTheFailoverOptionServesTheWalRelayFrom17On() throws Exception {
    OutboxTables tables = freshOutbox("failover");
    String slot = "compat_failover_" + major;
    String create = "SELECT pg_create_logical_replication_slot(?, 'pgoutput', false, false, true)";
    if (major < 17) {
      assertThatThrownBy(() -> dsl().execute(create, slot))
          .hasMessageContaining("pg_create_logical_replication_slot")
          .hasMessageContaining("does not exist");
    } else {
      dsl().execute(create, slot);
      RecordingPublisher publisher = new RecordingPublisher();
      closing(walRelay(tables, publisher).slotName(slot).build()).start();
      Outbox outbox = Outbox.builder().tables(tables).build();
      List<UUID> ids = recordAll(outbox, events("f", 2));

      await().atMost(WAIT).until(() -> publisher.published().size() == 2);
      assertThat(publisher.publishedIds()).containsExactlyElementsOf(ids);
      assertThat(
              dsl()
                  .fetchSingle(
                      "SELECT failover FROM pg_replication_slots WHERE slot_name = ?", slot)
                  .get(0, Boolean.class))
          .isTrue();
    }
  }
}
