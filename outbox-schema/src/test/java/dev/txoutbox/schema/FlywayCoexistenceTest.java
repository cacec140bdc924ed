package dev.txoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.TestDatabase;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The application's own Flyway beside the outbox's migrations: the README's recipes, run. The
 * application's migrations are {@code src/test/resources/db/app}: V1 creates {@code invoices}, V2
 * adds a column to it.
 */
class FlywayCoexistenceTest {

  private static final String APP_LOCATION = "classpath:db/app";

  private TestDatabase db;

  @BeforeEach
  void reserveSchema() {
    db = TestDatabase.createEmpty("coexist", 4);
  }

  @AfterEach
  void drop() {
    db.close();
  }

  /** The application's Flyway as it is usually configured: its defaults, one schema. */
  private Flyway applicationFlyway(String schema, boolean recipe) {
    var config =
        Flyway.configure().dataSource(db.dataSource()).locations(APP_LOCATION).schemas(schema);
    if (recipe) {
      // The recipe: a non-empty schema (the outbox's tables) starts the history at 0, so the
      // application's V1 still runs. Flyway's default baseline version is 1, which would skip it.
      config = config.baselineOnMigrate(true).baselineVersion("0");
    }
    return config.load();
  }

  private List<String> appliedByTheApplication(String schema) {
    // Flyway's own history table, outside the generated model.
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .resultQuery(
            "select version from "
                + schema
                + ".flyway_schema_history where success and version <> '0' order by installed_rank")
        .fetch(0, String.class);
  }

  private boolean invoicesHaveTheirCustomerColumn(String schema) {
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .resultQuery(
                "select count(*) from information_schema.columns where table_schema = ? and"
                    + " table_name = 'invoices' and column_name = 'customer'",
                schema)
            .fetchSingle(0, Integer.class)
        == 1;
  }

  @Test
  void theApplicationsFlywayWithItsDefaultsRefusesTheSchemaTheOutboxWasMigratedInto() {
    OutboxSchema.migrate(db.dataSource(), db.schema());

    assertThatThrownBy(() -> applicationFlyway(db.schema(), false).migrate())
        .isInstanceOf(FlywayException.class)
        .hasMessageContaining("Found non-empty schema(s)")
        .hasMessageContaining("but no schema history table");
  }

  @Test
  void sameSchemaOutboxFirstThenTheApplicationWithBaselineZero() {
    assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isEqualTo(3);
    assertThat(applicationFlyway(db.schema(), true).migrate().migrationsExecuted).isEqualTo(2);

    // The next start: each Flyway finds its own history and has nothing to do.
    assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isZero();
    assertThat(applicationFlyway(db.schema(), true).migrate().migrationsExecuted).isZero();
    assertThat(appliedByTheApplication(db.schema())).containsExactly("1", "2");
    assertThat(invoicesHaveTheirCustomerColumn(db.schema())).isTrue();
  }

  @Test
  void sameSchemaApplicationFirstThenTheOutbox() {
    assertThat(applicationFlyway(db.schema(), false).migrate().migrationsExecuted).isEqualTo(2);
    // The outbox's Flyway baselines a non-empty schema at 0 on its own.
    assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isEqualTo(3);

    assertThat(applicationFlyway(db.schema(), false).migrate().migrationsExecuted).isZero();
    assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isZero();
    assertThat(appliedByTheApplication(db.schema())).containsExactly("1", "2");
  }

  @Test
  void separateSchemasNeedNoRecipe() {
    String outboxSchema = db.schema() + "_ob";
    try {
      assertThat(OutboxSchema.migrate(db.dataSource(), outboxSchema)).isEqualTo(3);
      assertThat(applicationFlyway(db.schema(), false).migrate().migrationsExecuted).isEqualTo(2);
      assertThat(OutboxSchema.migrate(db.dataSource(), outboxSchema)).isZero();
      assertThat(applicationFlyway(db.schema(), false).migrate().migrationsExecuted).isZero();
      assertThat(invoicesHaveTheirCustomerColumn(db.schema())).isTrue();
    } finally {
      db.execute("DROP SCHEMA IF EXISTS " + outboxSchema + " CASCADE");
    }
  }
}
