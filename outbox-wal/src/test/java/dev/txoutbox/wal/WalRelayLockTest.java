package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static dev.txoutbox.wal.WalTestKit.WAIT;
import static dev.txoutbox.wal.WalTestKit.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.sql.Connection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A row another relay holds when the WAL relay claims it is waited for, not skipped: the other
 * relay's outcome decides, so the WAL relay never confirms past an event whose fate it does not
 * know.
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
      Claiming c = claimingAHeldRow("lr_", holder);
      holder.rollback();
      await().atMost(WAIT).until(() -> c.publisher.publishedIds().equals(List.of(c.id)));
      await().atMost(WAIT).until(() -> WalTestKit.pending(c.tables) == 0);
      assertThat(c.relay.skippedEvents()).isZero();
    }
  }

  @Test
  void aRowTheHolderPublishedMeanwhileIsNotPublishedAgain() throws Exception {
    try (Connection holder = LogicalServer.dataSource().getConnection()) {
      Claiming c = claimingAHeldRow("lp_", holder);
      // As the polling relay completes what it claimed: processed, then commit.
      DSL.using(holder, SQLDialect.POSTGRES, c.tables.settings(null))
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

  /** A relay whose claim waits for the row of event {@code id}, which another transaction holds. */
  private record Claiming(
      OutboxTables tables, UUID id, WalRelay relay, RecordingPublisher publisher) {}

  private Claiming claimingAHeldRow(String prefix, Connection holder) throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox(prefix);
    UUID id = heldEvent(tables, holder);
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay = kit.relay(tables, publisher, WalTestKit.config(100));
    relay.start();
    awaitClaimWaiting();
    assertThat(publisher.attempted()).isEmpty();
    return new Claiming(tables, id, relay, publisher);
  }

  /**
   * Makes the slot (a relay started and closed), writes one event and locks its row on {@code
   * holder}, in a transaction left open, as the polling relay's claim does.
   */
  private UUID heldEvent(OutboxTables tables, Connection holder) throws Exception {
    WalRelay first = kit.relay(tables, new RecordingPublisher(), WalTestKit.config(100));
    first.start();
    first.close();
    UUID id = write(tables, Outbox.builder().tables(tables).build(), "a", 1).get(0);
    holder.setAutoCommit(false);
    DSLContext held = DSL.using(holder, SQLDialect.POSTGRES, tables.settings(null));
    assertThat(
            held.select(OUTBOX_EVENTS.ID)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.eq(id))
                .forUpdate()
                .fetch(OUTBOX_EVENTS.ID))
        .containsExactly(id);
    return id;
  }

  /** Until a session of the server waits for a row lock: the WAL relay's claim. */
  private static void awaitClaimWaiting() {
    DSLContext dsl = DSL.using(LogicalServer.dataSource(), SQLDialect.POSTGRES);
    // pg_stat_activity is a catalog view outside the generated model: named fields.
    await()
        .atMost(WAIT)
        .until(
            () ->
                dsl.fetchCount(
                        DSL.table(DSL.name("pg_catalog", "pg_stat_activity")),
                        DSL.field(DSL.name("wait_event_type"))
                            .eq("Lock")
                            .and(DSL.field(DSL.name("query")).likeIgnoreCase("%returning%")))
                    == 1);
  }
}
