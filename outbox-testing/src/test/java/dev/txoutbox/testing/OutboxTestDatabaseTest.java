package dev.txoutbox.testing;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.txoutbox.schema.OutboxTables;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

class OutboxTestDatabaseTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  private static String schemaOfTheClass;

  @BeforeAll
  static void remember() {
    schemaOfTheClass = db.schema();
  }

  @Nested
  class ANestedClass {
    @Test
    void sharesTheSchemaOfItsEnclosingClass() {
      assertThat(db.schema()).isEqualTo(schemaOfTheClass);
      assertThat(db.dsl().fetchCount(OUTBOX_EVENTS)).isZero();
    }
  }

  @Test
  void handsTheClassAMigratedSchemaOfItsOwnOnTheLocalService() {
    assertThat(db.source())
        .as("no URL is configured in this build, and the local service runs")
        .isEqualTo(OutboxTestDatabase.Source.LOCAL);
    assertThat(db.schema()).startsWith("outboxtestdatabasetest_");
    assertThat(db.dsl().fetchCount(OUTBOX_EVENTS)).isZero();
    assertThat(db.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/txoutbox_test");
    System.out.println(
        "[kit timing] local service: schema ready in " + db.readyIn().toMillis() + " ms");
  }

  @Test
  void dropsTheSchemaAfterTheClassAndRefusesUseOutsideIt() {
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
    String schema = SampleUserTest.seen.get();
    assertThat(schema).isNotNull();
    assertThat(
            db.dsl()
                .fetchExists(
                    DSL.table(DSL.name("information_schema", "schemata")),
                    DSL.field(DSL.name("schema_name")).eq(schema)))
        .as("schema %s is dropped after its class", schema)
        .isFalse();
    assertThatThrownBy(SampleUserTest.db::dataSource)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("static @RegisterExtension field");
  }

  @Test
  void schemaNamesAreValidUniqueAndShortEnough() {
    String a = OutboxTestDatabase.schemaName("9-Lives Test".repeat(10));
    String b = OutboxTestDatabase.schemaName("9-Lives Test".repeat(10));
    assertThat(a).matches("s9_lives_test[a-z0-9_]*_[0-9a-f]{10}").isNotEqualTo(b);
    assertThat(a.length()).isLessThanOrEqualTo(54 - OutboxTestDatabase.ROOM_FOR_A_TABLE_PREFIX);
    // Even the longest name takes a prefix of that length.
    assertThat(OutboxTables.of(a, "p".repeat(OutboxTestDatabase.ROOM_FOR_A_TABLE_PREFIX)).schema())
        .isEqualTo(a);
  }

  @Test
  void builderRejectsBadPoolSizes() {
    assertThatThrownBy(() -> OutboxTestDatabase.builder().poolSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("poolSize must be 1 to 100 but was 0");
  }

  /** Run by the launcher above, not by the build directly (it is not a top-level class). */
  static class SampleUserTest {
    static final AtomicReference<String> seen = new AtomicReference<>();

    @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

    @Test
    void usesItsSchema() {
      db.execute("CREATE TABLE " + db.schema() + ".orders (id int)");
      seen.set(db.schema());
    }
  }
}
