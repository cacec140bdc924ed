package dev.txoutbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.OutboxTestDatabase;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * In ordered mode (its indexes installed) an event's detail names the earlier event of its
 * aggregate that the relay must publish first: a dead letter, or one still pending.
 */
class HeldBackTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static RunningConsole console;
  private static Seed seed;

  @BeforeAll
  static void start() {
    OutboxSchema.migrateOrderingIndex(db.dataSource(), OutboxTables.in(db.schema()));
    console = RunningConsole.readOnly(db);
    seed = new Seed(db);
  }

  @AfterAll
  static void stop() {
    console.close();
  }

  @Test
  void aPendingEventBehindADeadLetterOfItsAggregateNamesIt() {
    seed.processed("OrderPlaced", "order-1");
    UUID dead = seed.dead("OrderPlaced", "order-1", "boom");
    UUID waiting = seed.pending("OrderShipped", "order-1", "{}");
    UUID other = seed.pending("OrderPlaced", "order-2", "{}");

    JsonNode held = console.client.json("api/o/main/events/" + waiting).get("heldBackBy");

    assertThat(held.get("id").asText()).isEqualTo(dead.toString());
    assertThat(held.get("state").asText()).isEqualTo("dead");
    assertThat(console.client.json("api/o/main/events/" + other).get("heldBackBy").isNull())
        .isTrue();
    assertThat(console.client.json("api/o/main/events/" + dead).get("heldBackBy").isNull())
        .isTrue();
  }
}
