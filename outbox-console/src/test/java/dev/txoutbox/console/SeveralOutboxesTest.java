package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.OutboxTestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One console over several outboxes: the default one, a prefixed one in the same schema and one in
 * a schema of its own. Each is selected by its name in the URL and shows its own rows only.
 */
class SeveralOutboxesTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static OutboxTables main;
  private static OutboxTables billing;
  private static OutboxTables shipping;
  private static RunningConsole console;

  @BeforeAll
  static void start() {
    main = OutboxTables.in(db.schema());
    billing = db.migratePrefixed("bill_");
    shipping = db.migrateInNewSchema("shipping");
    console =
        RunningConsole.start(
            OutboxConsole.builder()
                .outbox("main", db.dataSource(), main)
                .outbox("billing", db.dataSource(), billing)
                .outbox("shipping", db.dataSource(), shipping)
                .countsMaxAge(java.time.Duration.ZERO)
                .port(0));
  }

  @AfterAll
  static void stop() {
    console.close();
  }

  private static void write(OutboxTables tables, String eventType, int n) {
    Outbox outbox = Outbox.builder().tables(tables).build();
    db.dsl(tables)
        .transaction(
            c -> {
              for (int i = 0; i < n; i++) {
                outbox.record(c.dsl(), OutboxEvent.of("order", "o-" + i, eventType, "{}"));
              }
            });
  }

  @Test
  void eachOutboxIsSelectedByNameAndShowsItsOwnRowsOnly() {
    db.truncateOutbox();
    write(main, "main.event", 1);
    write(billing, "billing.event", 2);
    write(shipping, "shipping.event", 3);

    JsonNode session = console.client.json("api/session");
    assertThat(session.get("outboxes").toString()).isEqualTo("[\"main\",\"billing\",\"shipping\"]");
    assertThat(console.client.json("api/o/main/overview").get("pending").asLong()).isEqualTo(1);
    assertThat(console.client.json("api/o/billing/overview").get("pending").asLong()).isEqualTo(2);
    assertThat(console.client.json("api/o/shipping/overview").get("pending").asLong()).isEqualTo(3);
    assertThat(console.client.json("api/o/shipping/events").toString())
        .contains("shipping.event")
        .doesNotContain("billing.event", "main.event");
    assertThat(console.client.json("api/o/billing/events").toString())
        .contains("billing.event")
        .doesNotContain("shipping.event", "main.event");
  }
}
