package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A commit the stream delivers before other sessions can see it. The server decodes a commit once
 * it is flushed; the committing session makes it visible only afterwards, and, when it waits for a
 * synchronous standby, only after the standby's answer. This server of the test's own names a
 * standby that never comes ({@code synchronous_standby_names}), with {@code synchronous_commit =
 * local} for every session but the writer's: the writer's commit is flushed and streamed, then
 * stays invisible until the test cancels its wait.
 */
class WalRelayVisibilityTest {

  private static dev.txoutbox.testing.LogicalServer server;

  @BeforeAll
  static void start() throws Exception {
    server =
        LogicalServer.ofItsOwn(
            Map.of("synchronous_standby_names", "'nobody'", "synchronous_commit", "local"));
  }

  /**
   * Ends any commit a failed test left waiting for the standby: it would hold back the next test's
   * slot creation, which waits for every running transaction, for ever.
   */
  @AfterEach
  void cancelWaitingCommits() throws Exception {
    execute(
        server.dataSource(),
        "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void anEventStreamedBeforeItsCommitIsVisibleIsPublishedOnceVisible() throws Exception {
    DataSource dataSource = server.dataSource();
    OutboxTables tables = OutboxTables.in("visibility");
    OutboxSchema.migrate(dataSource, tables);
    RecordingPublisher publisher = new RecordingPublisher();
    try (WalRelay relay = builder(dataSource, tables, publisher, WalTestKit.config(10)).build()) {
      relay.start();
      Outbox outbox = Outbox.builder().tables(tables).build();
      UUID before =
          DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null))
              .transactionResult(
                  c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "created", "{}")));
      // Published first, so that the next event's batch holds that event alone.
      await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().equals(List.of(before)));

      // The writer's commit waits for the standby: flushed and streamed, not yet visible.
      CompletableFuture<Integer> pid = new CompletableFuture<>();
      CompletableFuture<UUID> waiting =
          CompletableFuture.supplyAsync(() -> recordWaiting(dataSource, tables, outbox, pid));
      await().atMost(WalTestKit.WAIT).until(() -> relay.visibilityWaits() > 0);
      assertThat(publisher.publishedIds()).containsExactly(before);

      // Its wait cancelled, the commit becomes visible, and the WAL relay publishes it itself.
      execute(dataSource, "SELECT pg_cancel_backend(" + pid.get(10, TimeUnit.SECONDS) + ")");
      UUID late = waiting.get(30, TimeUnit.SECONDS);
      await().atMost(WalTestKit.WAIT).until(() -> publisher.published().size() == 2);
      assertThat(publisher.publishedIds()).containsExactly(before, late);
      assertThat(relay.skippedEvents()).isZero();
    }
  }

  @Test
  void inTheOrderedModesAnEventLeftInvisibleHoldsBackItsAggregateInTheBatch() throws Exception {
    DataSource dataSource = server.dataSource();
    OutboxTables tables = OutboxTables.in("visibility_ordered");
    OutboxSchema.migrate(dataSource, tables);
    OutboxSchema.migrateOrderingIndex(dataSource, tables);
    CountDownLatch gate = new CountDownLatch(1);
    CountDownLatch atGate = new CountDownLatch(1);
    AtomicReference<UUID> gateId = new AtomicReference<>();
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m -> {
                  if (m.id().equals(gateId.get())) {
                    atGate.countDown();
                    try {
                      gate.await(30, TimeUnit.SECONDS); // the relay reads nothing meanwhile
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                  return PublishResult.published();
                });
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null));
    try (WalRelay relay = ordered(dataSource, tables, publisher)) {
      relay.start();
      gateId.set(
          dsl.transactionResult(
              c -> outbox.record(c.dsl(), OutboxEvent.of("order", "gate", "created", "{}"))));
      assertThat(atGate.await(30, TimeUnit.SECONDS)).as("the gate is being published").isTrue();
      // While the relay publishes the gate: A's first event streamed but invisible, then its
      // second, visible; the relay reads both into one batch once the gate opens.
      CompletableFuture<Integer> pid = new CompletableFuture<>();
      CompletableFuture<UUID> waiting =
          CompletableFuture.supplyAsync(() -> recordWaiting(dataSource, tables, outbox, pid));
      int writer = pid.get(10, TimeUnit.SECONDS);
      await().atMost(WalTestKit.WAIT).until(() -> waitsForStandby(dataSource, writer));
      UUID second =
          dsl.transactionResult(
              c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "updated", "{}")));
      // Both sent before the gate opens, so that the relay reads them into one batch.
      String written = text(dataSource, "SELECT pg_current_wal_lsn()::text");
      await()
          .atMost(WalTestKit.WAIT)
          .until(
              () ->
                  text(
                          dataSource,
                          "SELECT count(*)::text FROM pg_stat_replication WHERE sent_lsn >= '"
                              + written
                              + "'::pg_lsn")
                      .equals("1"));
      gate.countDown();
      await()
          .atMost(WalTestKit.WAIT)
          .until(() -> relay.visibilityWaits() > 0 && relay.skippedEvents() == 2);
      assertThat(publisher.publishedIds())
          .as("A's second event is not published before its first")
          .containsExactly(gateId.get());
      execute(dataSource, "SELECT pg_cancel_backend(" + writer + ")");
      UUID first = waiting.get(30, TimeUnit.SECONDS);
      // Left untouched for the polling relay, which publishes both in order.
      assertThat(
              dsl.fetchCount(
                  OUTBOX_EVENTS,
                  OUTBOX_EVENTS.ID.in(first, second).and(OUTBOX_EVENTS.PROCESSED_AT.isNull())))
          .isEqualTo(2);
    }
  }

  @Test
  void inTheOrderedModesAnEventLeftInvisibleHoldsBackItsAggregateInLaterBatchesWhileItsCommitRuns()
      throws Exception {
    DataSource dataSource = server.dataSource();
    OutboxTables tables = OutboxTables.in("visibility_later");
    OutboxSchema.migrate(dataSource, tables);
    OutboxSchema.migrateOrderingIndex(dataSource, tables);
    RecordingPublisher publisher = new RecordingPublisher();
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null));
    try (WalRelay relay = ordered(dataSource, tables, publisher)) {
      relay.start();
      // A's first event streamed, then left to the polling relay while its commit stays invisible.
      CompletableFuture<Integer> pid = new CompletableFuture<>();
      CompletableFuture<UUID> waiting =
          CompletableFuture.supplyAsync(() -> recordWaiting(dataSource, tables, outbox, pid));
      int writer = pid.get(10, TimeUnit.SECONDS);
      await().atMost(WalTestKit.WAIT).until(() -> relay.skippedEvents() == 1);

      // A's second event and B's first, visible, each in a batch after the one that left A's first.
      UUID second =
          dsl.transactionResult(
              c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "updated", "{}")));
      UUID other =
          dsl.transactionResult(
              c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-2", "created", "{}")));
      await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().contains(other));
      assertThat(publisher.publishedIds())
          .as("A's second event is not published while its first is invisible")
          .containsExactly(other);
      assertThat(relay.skippedEvents()).isEqualTo(2);

      // Once A's first commit is visible, the check sees its row: A's third event waits for both.
      execute(dataSource, "SELECT pg_cancel_backend(" + writer + ")");
      UUID first = waiting.get(30, TimeUnit.SECONDS);
      UUID third =
          dsl.transactionResult(
              c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "shipped", "{}")));
      await().atMost(WalTestKit.WAIT).until(() -> relay.skippedEvents() == 3);
      assertThat(
              dsl.fetchCount(
                  OUTBOX_EVENTS,
                  OUTBOX_EVENTS
                      .ID
                      .in(first, second, third)
                      .and(OUTBOX_EVENTS.PROCESSED_AT.isNull())))
          .as("left untouched for the polling relay")
          .isEqualTo(3);

      // The polling relay's outcome, set here: once A's events are done, the WAL relay publishes
      // A's next one itself, so the hold ended with the invisible commit.
      dsl.update(OUTBOX_EVENTS)
          .set(OUTBOX_EVENTS.PROCESSED_AT, DSL.currentOffsetDateTime())
          .where(OUTBOX_EVENTS.ID.in(first, second, third))
          .execute();
      UUID fourth =
          dsl.transactionResult(
              c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "delivered", "{}")));
      await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().contains(fourth));
      assertThat(publisher.publishedIds()).containsExactly(other, fourth);
      assertThat(relay.skippedEvents()).isEqualTo(3);
    }
  }

  /**
   * A relay on this test's server in {@link Ordering#PER_AGGREGATE_SKIP_DEAD_LETTERS}, which leaves
   * events still invisible after 300 ms to the polling relay.
   */
  private static WalRelay ordered(
      DataSource dataSource, OutboxTables tables, RecordingPublisher publisher) {
    RelayConfig ordered =
        WalTestKit.config(10).toBuilder()
            .ordering(Ordering.PER_AGGREGATE_SKIP_DEAD_LETTERS)
            .build();
    return builder(dataSource, tables, publisher, ordered)
        .visibilityWait(Duration.ofMillis(300))
        .build();
  }

  /** A relay on this test's server. */
  private static WalRelayBuilder builder(
      DataSource dataSource,
      OutboxTables tables,
      RecordingPublisher publisher,
      RelayConfig config) {
    return WalRelay.builder()
        .sweeper(false) // no polling relay behind it in this test
        .dataSource(dataSource)
        .replicationUrl(server.jdbcUrl(), server.credentials())
        .tables(tables)
        .publisher(publisher)
        .config(config);
  }

  /** The one value {@code sql} selects. */
  private static String text(DataSource dataSource, String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        // Server functions and views outside the generated model: plain SQL.
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getString(1);
    }
  }

  /** Whether session {@code pid} waits for the synchronous standby, its commit flushed. */
  private static boolean waitsForStandby(DataSource dataSource, int pid) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        // pg_stat_activity is a catalog view outside the generated model: plain SQL.
        ResultSet r =
            s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = "
                    + pid
                    + " AND wait_event = 'SyncRep'")) {
      r.next();
      return r.getInt(1) == 1;
    }
  }

  /** Records one event in a session that waits for the standby at commit; tells its pid first. */
  private static UUID recordWaiting(
      DataSource dataSource, OutboxTables tables, Outbox outbox, CompletableFuture<Integer> pid) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      // A session setting: plain SQL, as jOOQ has no statement for it.
      s.execute("SET synchronous_commit = on");
      try (ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
        r.next();
        pid.complete(r.getInt(1));
      }
      c.setAutoCommit(false);
      UUID id =
          outbox.record(
              DSL.using(c, SQLDialect.POSTGRES, tables.settings(null)),
              OutboxEvent.of("order", "o-1", "created", "{}"));
      c.commit(); // returns with a warning once the wait is cancelled: committed locally
      return id;
    } catch (Exception e) {
      pid.completeExceptionally(e);
      throw new IllegalStateException(e);
    }
  }

  private static void execute(DataSource dataSource, String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql); // a server function call: plain SQL is shorter than its jOOQ form
    }
  }
}
