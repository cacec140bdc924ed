package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL 15's publication column lists and row filters: refused at start, and, appearing while
 * the relay runs, neither stall the stream nor lose an event.
 */
class WalRelayPublicationShapeTest {

  /** Every column but the payload, as a column list that leaves it out. */
  private static final String WITHOUT_PAYLOAD =
      "(id, seq, aggregate_type, aggregate_id, event_type, headers, attempts, created_at,"
          + " retry_after, processed_at, dead_lettered_at, last_error)";

  private static dev.txoutbox.testing.LogicalServer server;

  @BeforeAll
  static void startServer() throws Exception {
    Assumptions.assumeTrue(LogicalServer.pg15Available(), "no PostgreSQL 15 binaries installed");
    server = LogicalServer.pg15();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  private static WalRelay relay(OutboxTables tables, RecordingPublisher publisher, String name) {
    RelayConfig config = WalTestKit.config(10).toBuilder().name(name).build();
    return WalTestKit.builder(server.dataSource(), server.jdbcUrl(), tables, publisher, config)
        .build();
  }

  private static DSLContext dsl(OutboxTables tables) {
    return DSL.using(server.dataSource(), SQLDialect.POSTGRES, tables.settings(null));
  }

  @Test
  void aColumnListOrARowFilterIsRefusedAtStartWithTheStatementThatRemovesIt() {
    OutboxTables tables = OutboxTables.of("public", "refused_");
    OutboxSchema.migrate(server.dataSource(), tables);
    DSLContext dsl = dsl(tables);
    String publication = WalRelay.defaultName(tables);
    // DDL with no jOOQ model.
    dsl.execute(
        "CREATE PUBLICATION "
            + publication
            + " FOR TABLE refused_outbox_events "
            + WITHOUT_PAYLOAD
            + " WHERE (event_type <> 'x') WITH (publish = 'insert')");
    String fix =
        "ALTER PUBLICATION \"" + publication + "\" SET TABLE \"public\".\"refused_outbox_events\"";

    WalRelay relay = relay(tables, new RecordingPublisher(), "refused");
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "publication "
                + publication
                + " sends the inserts of public.refused_outbox_events only in part, with a column"
                + " list (id, seq, aggregate_type, aggregate_id, event_type, headers, attempts,"
                + " created_at, retry_after, processed_at, dead_lettered_at, last_error) and a row"
                + " filter (WHERE ((event_type)::text <> 'x'::text))")
        .hasMessageEndingWith(fix);
    dsl.execute(
        "ALTER PUBLICATION "
            + publication
            + " SET TABLE refused_outbox_events WHERE (event_type <> 'x')");
    assertThatThrownBy(relay::start)
        .hasMessageContaining("with a row filter (WHERE (")
        .hasMessageNotContaining("column list")
        .hasMessageEndingWith(fix);

    // The statement the message shows is the fix.
    dsl.execute(fix);
    try {
      relay.start();
      assertThat(relay.isRunning()).isTrue();
    } finally {
      relay.close();
      WalTestKit.dropSlot(server.dataSource(), relay.slotName());
    }
  }

  @Test
  void aColumnListOrRowFilterAddedWhileRunningLosesNoEventAndNeverStallsTheStream() {
    OutboxTables tables = OutboxTables.of("public", "changed_");
    OutboxSchema.migrate(server.dataSource(), tables);
    DSLContext dsl = dsl(tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher wal = new RecordingPublisher();
    RecordingPublisher sweeper = new RecordingPublisher();
    WalRelay relay = relay(tables, wal, "changed");
    OutboxRelay polling =
        OutboxRelay.builder()
            .dataSource(server.dataSource())
            .tables(tables)
            .publisher(sweeper)
            .config(RelayConfig.builder().name("changed-sweeper").build())
            .build();
    try {
      relay.start();
      String publication = relay.publicationName();
      List<UUID> all = new ArrayList<>(write(dsl, outbox, "whole", 3));
      await().atMost(WalTestKit.WAIT).until(() -> wal.publishedIds().containsAll(all));

      // DDL with no jOOQ model: the payload left out, then only rows of no event type.
      dsl.execute(
          "ALTER PUBLICATION "
              + publication
              + " SET TABLE changed_outbox_events "
              + WITHOUT_PAYLOAD);
      List<UUID> withoutPayload = write(dsl, outbox, "columns", 5);
      dsl.execute(
          "ALTER PUBLICATION "
              + publication
              + " SET TABLE changed_outbox_events WHERE (event_type = 'none')");
      List<UUID> filtered = write(dsl, outbox, "filtered", 5);
      dsl.execute("ALTER PUBLICATION " + publication + " SET TABLE changed_outbox_events");
      List<UUID> restored = write(dsl, outbox, "restored", 3);
      all.addAll(withoutPayload);
      all.addAll(filtered);
      all.addAll(restored);

      // The stream carries on: the inserts after the publication is whole again come from it.
      await().atMost(WalTestKit.WAIT).until(() -> wal.publishedIds().containsAll(restored));
      assertThat(relay.reconnects()).isZero();
      assertThat(wal.publishedIds()).doesNotContainAnyElementsOf(withoutPayload);
      assertThat(wal.publishedIds()).doesNotContainAnyElementsOf(filtered);
      // The sweeper publishes what the stream could not carry.
      polling.start();
      await()
          .atMost(WalTestKit.WAIT)
          .until(
              () -> {
                Set<UUID> published = new HashSet<>(wal.publishedIds());
                published.addAll(sweeper.publishedIds());
                return published.containsAll(all);
              });
      assertThat(sweeper.publishedIds())
          .containsExactlyInAnyOrderElementsOf(concat(withoutPayload, filtered));
      assertThat(dsl.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNull())).isZero();
    } finally {
      polling.close();
      relay.close();
      WalTestKit.dropSlot(server.dataSource(), relay.slotName());
    }
  }

  private static List<UUID> concat(List<UUID> a, List<UUID> b) {
    return WalTestKit.concat(a, b);
  }

  private static List<UUID> write(DSLContext dsl, Outbox outbox, String type, int n) {
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      dsl.transaction(
          c -> ids.add(outbox.record(c.dsl(), OutboxEvent.of("order", "a", type, "{}"))));
    }
    return ids;
  }
}
