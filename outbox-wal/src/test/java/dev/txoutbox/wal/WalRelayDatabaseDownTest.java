package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A WAL relay started while its database is down waits for it, then reads. */
class WalRelayDatabaseDownTest {

  @Test
  void aRelayStartedWhileTheDatabaseIsDownWaitsForItAndThenPublishes() throws Exception {
    Assumptions.assumeTrue(LogicalServer.pg15Available(), "no PostgreSQL 15 binaries installed");
    try (dev.txoutbox.testing.LogicalServer server = LogicalServer.pg15();
        CapturedLog log = new CapturedLog()) {
      OutboxTables tables = OutboxTables.of("public", "down_");
      OutboxSchema.migrate(server.dataSource(), tables);
      server.stop();
      RecordingPublisher publisher = new RecordingPublisher();
      WalRelay relay =
          WalTestKit.builder(
                  server.dataSource(),
                  server.jdbcUrl(),
                  tables,
                  publisher,
                  WalTestKit.config(10).toBuilder().name("down").build())
              .build();
      try {
        relay.start(); // does not throw: the database is only down
        assertThat(relay.isRunning()).isTrue();
        await()
            .atMost(WalTestKit.WAIT)
            .until(() -> log.lines().stream().anyMatch(l -> l.contains("cannot be reached")));

        server.start();
        await()
            .atMost(WalTestKit.WAIT)
            .until(() -> log.lines().stream().anyMatch(l -> l.contains("database reached")));
        await().atMost(WalTestKit.WAIT).until(() -> relay.slotLagBytes() >= 0);
        DSLContext dsl = DSL.using(server.dataSource(), SQLDialect.POSTGRES, tables.settings(null));
        Outbox outbox = Outbox.builder().tables(tables).build();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          dsl.transaction(
              c -> ids.add(outbox.record(c.dsl(), OutboxEvent.of("order", "a", "e", "{}"))));
        }
        await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().equals(ids));
        // One line as the wait starts, one as it ends: not one per check.
        assertThat(log.lines().stream().filter(l -> l.contains("cannot be reached"))).hasSize(1);
        assertThat(log.events().stream().filter(e -> e.getMessage().contains("database reached")))
            .singleElement()
            .satisfies(e -> assertThat(e.getLevel().toString()).isEqualTo("INFO"));
      } finally {
        relay.close();
        WalTestKit.dropSlot(server.dataSource(), relay.slotName());
      }
    }
  }
}
