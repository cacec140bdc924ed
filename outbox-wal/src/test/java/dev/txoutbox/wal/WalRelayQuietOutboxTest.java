package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * While the outbox table is idle and other tables are written, the relay still moves the slot's
 * confirmed position forward: since PostgreSQL 15 no empty transaction tells it to, only the
 * server's keepalives.
 */
class WalRelayQuietOutboxTest {

  @Test
  void onPostgres15TheSlotAdvancesPastOtherTablesWritesWhileTheOutboxIsIdle() throws Exception {
    Assumptions.assumeTrue(LogicalServer.pg15Available(), "no PostgreSQL 15 binaries installed");
    try (dev.txoutbox.testing.LogicalServer server = LogicalServer.pg15()) {
      quietOutboxAdvances(server.dataSource(), server.jdbcUrl(), "quiet15_");
    }
  }

  @Test
  void onTheEmbeddedServerTheSlotAdvancesPastOtherTablesWritesWhileTheOutboxIsIdle()
      throws Exception {
    quietOutboxAdvances(LogicalServer.dataSource(), LogicalServer.jdbcUrl(), "quiet14_");
  }

  @Test
  void aCleanlyStoppedDrainedRelayConfirmsTheServersPositionAtClose() throws Exception {
    Assumptions.assumeTrue(LogicalServer.pg15Available(), "no PostgreSQL 15 binaries installed");
    try (dev.txoutbox.testing.LogicalServer server = LogicalServer.pg15()) {
      DataSource dataSource = server.dataSource();
      OutboxTables tables = OutboxTables.of("public", "stop_");
      OutboxSchema.migrate(dataSource, tables);
      DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null));
      RecordingPublisher publisher = new RecordingPublisher();
      RelayConfig config = WalTestKit.config(10).toBuilder().name("stop").build();
      WalRelay relay =
          WalTestKit.builder(dataSource, server.jdbcUrl(), tables, publisher, config)
              // No confirmation of a quiet outbox while the test runs: only the one at close.
              .statusInterval(Duration.ofMinutes(10))
              .build();
      relay.start();
      Outbox outbox = Outbox.builder().tables(tables).build();
      for (int i = 0; i < 5; i++) {
        dsl.transaction(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e", "{}")));
      }
      await().atMost(WalTestKit.WAIT).until(() -> publisher.published().size() == 5);
      // After the last event: the relay's own marks, and another table's writes (no jOOQ model).
      dsl.execute("CREATE TABLE stop_other (n int)");
      dsl.execute("INSERT INTO stop_other SELECT generate_series(1, 20000)");
      long written = insertLsn(dsl);
      // The server has read its WAL that far for the slot (and told the relay in a keepalive).
      await()
          .atMost(WalTestKit.WAIT)
          .until(
              () ->
                  ((Number)
                              dsl.fetchValue(
                                  "SELECT coalesce((max(sent_lsn) - '0/0')::bigint, 0)"
                                      + " FROM pg_stat_replication"))
                          .longValue()
                      >= written);
      assertThat(confirmedFlush(dsl, relay.slotName())).isLessThan(written);

      relay.close();

      assertThat(relay.confirmedLsn()).isGreaterThanOrEqualTo(written);
      // Once the stream has ended, the server has taken in every status the relay sent.
      await()
          .atMost(WalTestKit.WAIT)
          .until(
              () ->
                  dsl.fetchValue(
                          "SELECT count(*) FROM pg_replication_slots WHERE slot_name = ? AND active",
                          relay.slotName())
                      .equals(0L));
      assertThat(confirmedFlush(dsl, relay.slotName())).isGreaterThanOrEqualTo(written);
    }
  }

  private static long insertLsn(DSLContext dsl) {
    // A server function outside the model.
    return ((Number) dsl.fetchValue("SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint"))
        .longValue();
  }

  private static void quietOutboxAdvances(DataSource dataSource, String url, String prefix)
      throws Exception {
    OutboxTables tables = OutboxTables.of("public", prefix);
    OutboxSchema.migrate(dataSource, tables);
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null));
    RecordingPublisher publisher = new RecordingPublisher();
    RelayConfig config = WalTestKit.config(10).toBuilder().name(prefix).build();
    WalRelay relay =
        WalTestKit.builder(dataSource, url, tables, publisher, config)
            .statusInterval(Duration.ofMillis(100))
            .build();
    try {
      relay.start();
      // One event first, so that the relay confirms a commit of its own.
      Outbox outbox = Outbox.builder().tables(tables).build();
      dsl.transaction(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e", "{}")));
      await().atMost(WalTestKit.WAIT).until(() -> publisher.published().size() == 1);
      long afterEvent = confirmedFlush(dsl, relay.slotName());

      // Another table, not in the publication, busy; DDL and its writes have no jOOQ model.
      dsl.execute("CREATE TABLE " + prefix + "other (n int)");
      for (int i = 0; i < 20; i++) {
        dsl.execute("INSERT INTO " + prefix + "other SELECT generate_series(1, 1000)");
      }
      long written = currentLsn(dsl);
      assertThat(written).isGreaterThan(afterEvent);
      await().atMost(WalTestKit.WAIT).until(() -> confirmedFlush(dsl, relay.slotName()) >= written);
      assertThat(relay.confirmedLsn()).isGreaterThanOrEqualTo(written);
      assertThat(publisher.published()).hasSize(1);
      // A commit to the outbox after the quiet confirmation is still published whole.
      dsl.transaction(
          c -> {
            outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e2", "{}"));
            outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e3", "{}"));
          });
      await().atMost(WalTestKit.WAIT).until(() -> publisher.published().size() == 3);
      assertThat(publisher.published().subList(1, 3))
          .extracting(m -> m.eventType())
          .isEqualTo(List.of("e2", "e3"));
    } finally {
      relay.close();
      // pg_replication_slots and the slot functions have no jOOQ model.
      WalTestKit.dropSlot(dataSource, relay.slotName());
    }
  }

  private static long confirmedFlush(DSLContext dsl, String slot) {
    // pg_replication_slots has no jOOQ model; pg_lsn minus '0/0' is the position as a number.
    return dsl.fetchValue(
                "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots"
                    + " WHERE slot_name = ?",
                slot)
            instanceof Number n
        ? n.longValue()
        : -1;
  }

  private static long currentLsn(DSLContext dsl) {
    // A server function outside the model.
    return ((Number) dsl.fetchValue("SELECT (pg_current_wal_lsn() - '0/0')::bigint")).longValue();
  }
}
