package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.wal.WalRelay;
import dev.txoutbox.wal.WalSlot;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console on the database of a running WAL relay, with its logical slot (outbox-testing's
 * shared {@link LogicalServer}, with {@code wal_level=logical}: the shared service's configuration
 * is never touched): the slot in use, its lag and the WAL it keeps, and the problem once no relay
 * reads it.
 */
class ConsoleWalSlotTest {

  private static LogicalServer server;

  @BeforeAll
  static void start() {
    server = LogicalServer.shared();
  }

  @Test
  void theOverviewAndRelaysPageShowTheWalRelaysSlotInUseAndThenUnused() throws SQLException {
    DataSource ds = server.dataSource();
    OutboxTables tables = OutboxTables.in("console_wal");
    OutboxSchema.migrate(ds, tables);
    Properties user = new Properties();
    user.setProperty("user", "postgres");
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay =
        WalRelay.builder()
            .dataSource(ds)
            .replicationUrl(server.jdbcUrl(), user)
            .tables(tables)
            .publisher(publisher)
            .build();
    try (RunningConsole console =
        RunningConsole.start(OutboxConsole.builder().outbox("wal", ds, tables).port(0))) {
      relay.start();
      insertEvent(ds);
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.published().size() == 1);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  console.client.json("api/o/wal/overview").get("slot").path("active").asBoolean());

      JsonNode slot = console.client.json("api/o/wal/relays").get("slot");
      assertThat(slot.get("name").asText()).isEqualTo(WalSlot.defaultName(tables));
      assertThat(slot.get("type").asText()).isEqualTo("logical");
      assertThat(slot.get("plugin").asText()).isEqualTo("pgoutput");
      assertThat(slot.get("lagBytes").asLong()).isGreaterThanOrEqualTo(0);
      assertThat(slot.get("retainedBytes").asLong()).isPositive();
      // A relay reads the slot: the server's own figure when it has one (it resets it when idle).
      assertThat(slot.get("lagSecondsSource").asText())
          .isIn("replication statistics", "oldest pending event");
      assertThat(slot.get("lagSeconds").asDouble()).isGreaterThanOrEqualTo(0.0);
      assertThat(
              console
                  .client
                  .json("api/o/wal/overview")
                  .get("problems")
                  .get(0)
                  .get("level")
                  .asText())
          .isEqualTo("ok");

      relay.close();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  !console.client.json("api/o/wal/overview").get("slot").get("active").asBoolean());
      assertThat(
              console.client.json("api/o/wal/overview").get("problems").get(0).get("text").asText())
          .startsWith(
              "WAL slot " + WalSlot.defaultName(tables) + " is not in use by any relay and keeps ")
          .contains("of WAL on the database server");
      // No relay reads it: the age of the oldest pending event, none here.
      JsonNode idle = console.client.json("api/o/wal/relays").get("slot");
      assertThat(idle.get("lagSecondsSource").asText()).isEqualTo("oldest pending event");
      assertThat(idle.get("lagSeconds").asDouble()).isZero();
    } finally {
      relay.close();
    }
  }

  private static void insertEvent(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "insert into console_wal.outbox_events (id, aggregate_type, aggregate_id, event_type,"
              + " payload) values (gen_random_uuid(), 'order', '1', 'OrderPlaced', '{}')");
    }
  }
}
