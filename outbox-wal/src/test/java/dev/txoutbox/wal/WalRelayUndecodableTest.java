package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A row the server cannot decode for the stream: a {@code jsonb} payload of 8,300 times {@code
 * 1e131071}, 75 KB stored, which PostgreSQL renders past 1 GB ("out of memory, Cannot enlarge
 * string buffer") on every reconnection. Each decode costs the server about 1 GB and seconds of
 * work; the test pays it {@value StuckTransaction#SKIP_AFTER} times for the relay and twice for the
 * sweeper (its claim, then the row alone), one at a time.
 */
class WalRelayUndecodableTest {

  /** Three failed decodes and the sweeper's two reads, each seconds on this machine. */
  private static final Duration LONG_WAIT = Duration.ofMinutes(4);

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  @Test
  void aTransactionTheServerCannotDecodeIsSkippedAndLeftToTheSweeper() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("ud_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher wal = new RecordingPublisher();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    WalRelay relay =
        kit.relay(WalTestKit.builder(tables, wal, WalTestKit.config(50)).metrics(registry));
    relay.start();
    List<UUID> before = WalTestKit.write(tables, outbox, "before", 1);

    // One transaction: a healthy event and the row no stream can carry, inserted by plain SQL.
    DSLContext dsl = LogicalServer.dsl(tables);
    UUID huge = UUID.randomUUID();
    UUID[] besides = new UUID[1];
    long xid =
        dsl.transactionResult(
            c -> {
              besides[0] = outbox.record(c.dsl(), OutboxEvent.of("order", "x", "beside", "{}"));
              c.dsl()
                  .insertInto(OUTBOX_EVENTS)
                  .set(OUTBOX_EVENTS.ID, huge)
                  .set(OUTBOX_EVENTS.AGGREGATE_TYPE, "order")
                  .set(OUTBOX_EVENTS.AGGREGATE_ID, "x")
                  .set(OUTBOX_EVENTS.EVENT_TYPE, "huge")
                  .set(
                      OUTBOX_EVENTS.PAYLOAD,
                      DSL.field(
                          "('[' || repeat('1e131071,', 8299) || '1e131071]')::jsonb",
                          OUTBOX_EVENTS.PAYLOAD.getDataType()))
                  .execute();
              return c.dsl().fetchSingle("select txid_current() % 4294967296").get(0, Long.class);
            });
    UUID beside = besides[0];
    List<UUID> after = WalTestKit.write(tables, outbox, "after", 20);

    try (CapturedLog log = new CapturedLog()) {
      await().atMost(LONG_WAIT).until(() -> relay.skippedTransactions() == 1);
      // Exactly that transaction: the events before and after it come from the stream.
      await()
          .atMost(WalTestKit.WAIT)
          .until(() -> wal.publishedIds().containsAll(WalTestKit.concat(before, after)));
      assertThat(wal.publishedIds()).doesNotContain(huge, beside);
      assertThat(
              log.lines().stream()
                  .filter(l -> l.contains("moved past transaction " + xid))
                  .toList())
          .singleElement()
          .asString()
          .contains("slot " + relay.slotName())
          .contains("Cannot enlarge string buffer")
          .contains("polling relay");
    }
    List<WalSlot.SkippedTransaction> skips =
        WalSlot.skippedTransactions(LogicalServer.dataSource(), tables, relay.slotName());
    assertThat(skips).singleElement().satisfies(s -> assertThat(s.xid()).isEqualTo(xid));
    assertThat(skips.get(0).error()).contains("out of memory");
    long confirmed =
        org.postgresql.replication.LogSequenceNumber.valueOf(
                WalSlot.find(LogicalServer.dataSource(), relay.slotName())
                    .orElseThrow()
                    .confirmedFlushLsn()
                    .orElseThrow())
            .asLong();
    assertThat(confirmed)
        .isGreaterThan(
            org.postgresql.replication.LogSequenceNumber.valueOf(skips.get(0).commitLsn())
                .asLong());
    assertThat(
            registry
                .get(WalMeters.SKIPPED_TRANSACTIONS)
                .tag("relay", "wal-test")
                .functionCounter()
                .count())
        .isEqualTo(1);

    // The sweeper publishes the healthy event of the skipped transaction and dead-letters the row.
    RecordingPublisher sweeper = new RecordingPublisher();
    kit.polling(tables, sweeper, Clock.systemUTC()).start();
    await()
        .atMost(LONG_WAIT)
        .until(
            () ->
                dsl.fetchCount(
                        OUTBOX_EVENTS,
                        OUTBOX_EVENTS.ID.eq(huge).and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull()))
                    == 1);
    await().atMost(WalTestKit.WAIT).until(() -> sweeper.publishedIds().contains(beside));
    assertThat(sweeper.publishedIds()).containsExactly(beside);
    assertThat(WalTestKit.pending(tables)).isEqualTo(1); // the dead letter
  }
}
