package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.sql.Connection;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A row another relay holds when the WAL relay claims it is waited for, not skipped: the other
 * relay's outcome decides, so the WAL relay never confirms past an event whose fate it does not
 * know. The wait is bounded by a lock timeout, after which the relay tells the server it is alive
 * and claims again, and a deadlock with another relay's claim is retried.
 */
class WalRelayLockTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  @Test
  void aRowHeldByATransactionThatRollsBackIsPublishedByTheWalRelay() throws Exception {
    try (Connection holder = LogicalServer.dataSource().getConnection()) {
      Claiming c = claimingAHeldRow("lr_", holder, WalTestKit.config(100), null);
      holder.rollback();
      await().atMost(WAIT).until(() -> c.publisher.publishedIds().equals(List.of(c.id)));
      await().atMost(WAIT).until(() -> WalTestKit.pending(c.tables) == 0);
      assertThat(c.relay.skippedEvents()).isZero();
    }
  }

  @Test
  void aRowTheHolderPublishedMeanwhileIsNotPublishedAgain() throws Exception {
    try (Connection holder = LogicalServer.dataSource().getConnection()) {
      Claiming c = claimingAHeldRow("lp_", holder, WalTestKit.config(100), null);
      // As the polling relay completes what it claimed: processed, then commit.
      held(holder, c.tables)
          .update(OUTBOX_EVENTS)
          .set(OUTBOX_EVENTS.PROCESSED_AT, OffsetDateTime.now())
          .where(OUTBOX_EVENTS.ID.eq(c.id))
          .execute();
      holder.commit();
      await().atMost(WAIT).until(() -> c.relay.skippedEvents() == 1);
      List<UUID> next = write(c.tables, Outbox.builder().tables(c.tables).build(), "b", 1);
      await().atMost(WAIT).until(() -> c.publisher.publishedIds().equals(next));
    }
  }

  @Test
  void inDeleteModeARowTheHolderDeletedMeanwhileIsFinishedNotAwaitedAsInvisible() throws Exception {
    RelayConfig deleting =
        WalTestKit.config(100).toBuilder().completionMode(CompletionMode.DELETE).build();
    try (Connection holder = LogicalServer.dataSource().getConnection()) {
      Claiming c = claimingAHeldRow("ld_", holder, deleting, null);
      // As the polling relay completes what it claimed in DELETE mode.
      held(holder, c.tables).deleteFrom(OUTBOX_EVENTS).where(OUTBOX_EVENTS.ID.eq(c.id)).execute();
      holder.commit();
      await().atMost(WAIT).until(() -> c.relay.skippedEvents() == 1);
      assertThat(c.relay.visibilityWaits()).as("looks again for a row not visible").isZero();
      List<UUID> next = write(c.tables, Outbox.builder().tables(c.tables).build(), "b", 1);
      await().atMost(WAIT).until(() -> c.publisher.publishedIds().equals(next));
      assertThat(WalTestKit.pending(c.tables)).isZero();
    }
  }

  @Test
  void aClaimWaitingPastTheLockTimeoutClaimsAgainInANewTransaction() throws Exception {
    try (CapturedLog log = new CapturedLog();
        Connection holder = LogicalServer.dataSource().getConnection()) {
      // A status interval of 400 ms gives a lock timeout of 200 ms.
      Claiming c = claimingAHeldRow("lt_", holder, WalTestKit.config(100), Duration.ofMillis(400));
      OffsetDateTime first = waitingClaims().iterator().next();
      await().atMost(WAIT).until(() -> waitingClaims().stream().anyMatch(t -> t.isAfter(first)));
      assertThat(c.publisher.attempted()).isEmpty();
      assertThat(log.events())
          .filteredOn(
              e ->
                  e.getLevel() == ch.qos.logback.classic.Level.INFO
                      && e.getFormattedMessage().contains("held by another relay"))
          .as("said once per batch at INFO")
          .hasSize(1);
      holder.rollback();
      await().atMost(WAIT).until(() -> c.publisher.publishedIds().equals(List.of(c.id)));
      assertThat(c.relay.reconnects()).as("the stream stayed open").isZero();
    }
  }

  @Test
  void aDeadlockWithAnotherClaimIsBrokenAndTheBatchPublishedOnce() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("dl_");
    startAndClose(tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    // Two events in one transaction, so in one batch, a few milliseconds apart: their UUIDv7 ids
    // then sort as they were inserted, so the claim locks the first one first whether it reads
    // the rows in id order (the primary key) or in their physical order (a scan).
    List<UUID> ids =
        LogicalServer.dsl(tables)
            .transactionResult(
                t -> {
                  UUID a = outbox.record(t.dsl(), OutboxEvent.of("order", "a", "e1", "{}"));
                  long written = System.currentTimeMillis();
                  await()
                      .pollDelay(Duration.ZERO)
                      .pollInterval(Duration.ofMillis(1))
                      .atMost(WalTestKit.WAIT)
                      .until(() -> System.currentTimeMillis() > written + 1);
                  return List.of(
                      a, outbox.record(t.dsl(), OutboxEvent.of("order", "b", "e2", "{}")));
                });
    UUID low = ids.get(0);
    UUID high = ids.get(1);
    assertThat(low.toString()).as("the server's order of uuids").isLessThan(high.toString());
    try (CapturedLog log = new CapturedLog();
        Connection other = LogicalServer.dataSource().getConnection()) {
      other.setAutoCommit(false);
      DSLContext side = held(other, tables);
      // Detects late, so that the WAL relay's session finds the deadlock and is the one failed.
      side.execute("SET LOCAL deadlock_timeout = '20s'");
      lock(side, high);
      RecordingPublisher publisher = new RecordingPublisher();
      WalRelay relay = kit.relay(tables, publisher, WalTestKit.config(100));
      relay.start();
      awaitClaimWaiting();
      assertThat(
              LogicalServer.dsl(tables)
                  .select(OUTBOX_EVENTS.ID)
                  .from(OUTBOX_EVENTS)
                  .where(OUTBOX_EVENTS.ID.eq(low))
                  .forUpdate()
                  .skipLocked()
                  .fetch())
          .as("the WAL relay's claim holds the low row")
          .isEmpty();
      // The WAL relay holds the low row and waits for the high one; this waits for the low one.
      CompletableFuture<Void> crossing = CompletableFuture.runAsync(() -> lock(side, low));
      crossing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      await()
          .atMost(WAIT)
          .until(() -> log.lines().stream().anyMatch(l -> l.contains("break a deadlock")));
      assertThat(publisher.attempted()).isEmpty();
      other.rollback();
      await().atMost(WAIT).until(() -> publisher.publishedIds().size() == 2);
      assertThat(publisher.publishedIds()).containsExactlyInAnyOrderElementsOf(ids);
      assertThat(relay.reconnects()).isZero();
    }
  }

  /** A relay whose claim waits for the row of event {@code id}, which another transaction holds. */
  private record Claiming(
      OutboxTables tables, UUID id, WalRelay relay, RecordingPublisher publisher) {}

  private Claiming claimingAHeldRow(
      String prefix, Connection holder, RelayConfig config, Duration statusInterval)
      throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox(prefix);
    startAndClose(tables);
    UUID id = write(tables, Outbox.builder().tables(tables).build(), "a", 1).get(0);
    holder.setAutoCommit(false);
    lock(held(holder, tables), id);
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelayBuilder builder = WalTestKit.builder(tables, publisher, config);
    if (statusInterval != null) {
      builder.statusInterval(statusInterval);
    }
    WalRelay relay = kit.relay(builder);
    relay.start();
    awaitClaimWaiting();
    assertThat(publisher.attempted()).isEmpty();
    return new Claiming(tables, id, relay, publisher);
  }

  /** Makes the slot and publication: a relay started and closed. */
  private void startAndClose(OutboxTables tables) {
    WalRelay first = kit.relay(tables, new RecordingPublisher(), WalTestKit.config(100));
    first.start();
    first.close();
  }

  private static DSLContext held(Connection c, OutboxTables tables) {
    return DSL.using(c, SQLDialect.POSTGRES, tables.settings(null));
  }

  /** Locks the row of {@code id} in {@code tx}'s open transaction, as the polling relay's claim. */
  private static void lock(DSLContext tx, UUID id) {
    assertThat(
            tx.select(OUTBOX_EVENTS.ID)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(id))
                .forUpdate()
                .fetch(OUTBOX_EVENTS.ID))
        .containsExactly(id);
  }

  /** Until a session of the server waits for a row lock: the WAL relay's claim. */
  private static void awaitClaimWaiting() {
    await().atMost(WAIT).until(() -> !waitingClaims().isEmpty());
  }

  /** The transaction start times of the sessions waiting for a lock on an outbox table. */
  private static Set<OffsetDateTime> waitingClaims() {
    DSLContext dsl = DSL.using(LogicalServer.dataSource(), SQLDialect.POSTGRES);
    // pg_stat_activity is a catalog view outside the generated model: named fields.
    Field<OffsetDateTime> started = DSL.field(DSL.name("xact_start"), OffsetDateTime.class);
    return dsl.select(started)
        .from(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")))
        .where(DSL.field(DSL.name("wait_event_type")).eq("Lock"))
        .and(DSL.field(DSL.name("query"), String.class).likeIgnoreCase("%outbox_events%"))
        .fetchSet(started);
  }
}
