package dev.txoutbox.testing;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.txoutbox.schema.OutboxTables;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

/**
 * {@link OutboxTestDatabase} with several outboxes: a prefixed one beside the class's own, and one
 * in a schema of its own. Every test starts from {@link OutboxTestDatabase#truncateOutbox()}, so
 * none depends on the order the tests run in.
 */
class SeveralOutboxesTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static OutboxTables billing;
  private static OutboxTables shipping;

  @BeforeAll
  static void outboxes() {
    billing = db.migratePrefixed("bill_");
    shipping = db.migrateInNewSchema("shipping");
  }

  @BeforeEach
  void empty() {
    db.truncateOutbox();
  }

  @Test
  void truncateOutboxEmptiesEveryMigratedOutbox() {
    insert(OutboxTables.in(db.schema()), "order");
    insert(billing, "invoice");
    insert(billing, "invoice");
    insert(shipping, "parcel");
    assertThat(counts()).containsExactly(1, 2, 1);

    db.truncateOutbox();

    assertThat(counts()).containsExactly(0, 0, 0);
  }

  @Test
  void truncatesAndReadsOneOutboxAlone() {
    insert(OutboxTables.in(db.schema()), "order");
    insert(billing, "invoice");

    db.truncateOutbox(billing);

    assertThat(counts()).containsExactly(1, 0, 0);
    assertThat(
            db.dsl(OutboxTables.in(db.schema()))
                .select(OUTBOX_EVENTS.AGGREGATE_TYPE)
                .from(OUTBOX_EVENTS)
                .fetch(OUTBOX_EVENTS.AGGREGATE_TYPE))
        .containsExactly("order");
  }

  @Test
  void listsTheOutboxesAndMigratingTwiceIsHarmless() {
    assertThat(db.migratePrefixed("bill_")).isEqualTo(billing);
    assertThat(db.outboxes()).containsExactly(OutboxTables.in(db.schema()), billing, shipping);
    assertThat(shipping.schema()).startsWith("shipping_").isNotEqualTo(db.schema());
  }

  @Test
  void refusesAnOutboxItDidNotMigrate() {
    OutboxTables other = OutboxTables.of(db.schema(), "nope_");
    assertThatThrownBy(() -> db.dsl(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tables must be an outbox migrated for this class (by the kit or migrate(...)) but was "
                + db.schema()
                + ".nope_*");
    assertThatThrownBy(() -> db.migratePrefixed("Bad-Prefix"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tablePrefix");
  }

  @Test
  void dropsTheSchemasItCreatedAfterTheClass() {
    SampleUserTest.seen.set(null);
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    LauncherFactory.create()
        .execute(
            LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(SampleUserTest.class))
                .configurationParameters(Map.of("junit.jupiter.conditions.deactivate", "*"))
                .build(),
            listener);

    assertThat(listener.getSummary().getTestsSucceededCount()).isEqualTo(1);
    String created = SampleUserTest.seen.get();
    assertThat(created).isNotNull();
    assertThat(
            db.dsl()
                .fetchExists(
                    DSL.table(DSL.name("information_schema", "schemata")),
                    DSL.field(DSL.name("schema_name")).eq(created)))
        .as("schema %s is dropped after its class", created)
        .isFalse();
  }

  private static List<Integer> counts() {
    return db.outboxes().stream().map(t -> db.dsl(t).fetchCount(OUTBOX_EVENTS)).toList();
  }

  private static void insert(OutboxTables tables, String aggregateType) {
    db.execute(
        "INSERT INTO "
            + tables.schema()
            + "."
            + tables.eventsTable()
            + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES"
            + " (gen_random_uuid(), '"
            + aggregateType
            + "', 'a-1', '"
            + aggregateType
            + ".made', '{}')");
  }

  /** Run by the launcher above, not by the build directly (it is not a top-level class). */
  static class SampleUserTest {
    static final AtomicReference<String> seen = new AtomicReference<>();

    @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

    @Test
    void migratesAnOutboxInASchemaOfItsOwn() {
      seen.set(db.migrateInNewSchema("sample").schema());
    }
  }
}
