package dev.txoutbox.examples.orders;

import dev.txoutbox.schema.OutboxSchema;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The example's tables: the outbox's (through {@link OutboxSchema}) and its own {@code orders},
 * migrated by Flyway from its own location with its own history table, so the two histories never
 * mix although they share a schema. Thread-safe: it holds no state.
 */
final class OrdersSchema {

  static final String LOCATION = "classpath:db/migration/orders-example";
  static final String HISTORY_TABLE = "orders_example_schema_history";

  static final Field<UUID> ID = DSL.field(DSL.name("id"), SQLDataType.UUID);
  static final Field<String> CUSTOMER_ID = DSL.field(DSL.name("customer_id"), SQLDataType.VARCHAR);
  static final Field<Long> TOTAL_CENTS = DSL.field(DSL.name("total_cents"), SQLDataType.BIGINT);

  private OrdersSchema() {}

  /** Creates or upgrades the outbox tables and then the {@code orders} table in {@code schema}. */
  static void migrate(DataSource dataSource, String schema) {
    OutboxSchema.migrate(dataSource, schema);
    Flyway.configure(OrdersSchema.class.getClassLoader())
        .dataSource(dataSource)
        .locations(LOCATION)
        .table(HISTORY_TABLE)
        .schemas(schema)
        .defaultSchema(schema)
        .createSchemas(true)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  /** The {@code orders} table in {@code schema}. */
  static Table<?> orders(String schema) {
    return DSL.table(DSL.name(schema, "orders"));
  }
}
