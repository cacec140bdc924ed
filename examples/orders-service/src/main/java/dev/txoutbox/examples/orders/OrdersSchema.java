package dev.txoutbox.examples.orders;

import dev.txoutbox.inbox.OutboxInbox;
import dev.txoutbox.schema.OutboxSchema;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The example's tables, in two schemas as two services would have them. The order service's schema
 * holds the outbox's tables (through {@link OutboxSchema}) and its own {@code orders}; the
 * downstream consumer's schema holds the consumer's inbox (through {@link OutboxInbox}) and its
 * {@code customer_totals}. Each set is migrated by Flyway from its own location with its own
 * history table, so no two histories mix although they share a schema. Thread-safe: it holds no
 * state.
 */
final class OrdersSchema {

  static final String LOCATION = "classpath:db/migration/orders-example";
  static final String HISTORY_TABLE = "orders_example_schema_history";
  static final String CONSUMER_LOCATION = "classpath:db/migration/orders-consumer";
  static final String CONSUMER_HISTORY_TABLE = "orders_consumer_schema_history";

  static final Field<UUID> ID = DSL.field(DSL.name("id"), SQLDataType.UUID);
  static final Field<String> CUSTOMER_ID = DSL.field(DSL.name("customer_id"), SQLDataType.VARCHAR);
  static final Field<Long> TOTAL_CENTS = DSL.field(DSL.name("total_cents"), SQLDataType.BIGINT);

  private OrdersSchema() {}

  /** Creates or upgrades the outbox tables and then the {@code orders} table in {@code schema}. */
  static void migrate(DataSource dataSource, String schema) {
    OutboxSchema.migrate(dataSource, schema);
    migrate(dataSource, schema, LOCATION, HISTORY_TABLE);
  }

  /**
   * Creates or upgrades the consumer's inbox and then its {@code customer_totals} table in {@code
   * consumerSchema}: in the consumer's database (here the same server), never in the producer's
   * outbox schema.
   */
  static void migrateConsumer(DataSource dataSource, String consumerSchema) {
    OutboxInbox.migrate(dataSource, consumerSchema);
    migrate(dataSource, consumerSchema, CONSUMER_LOCATION, CONSUMER_HISTORY_TABLE);
  }

  private static void migrate(
      DataSource dataSource, String schema, String location, String historyTable) {
    Flyway.configure(OrdersSchema.class.getClassLoader())
        .dataSource(dataSource)
        .locations(location)
        .table(historyTable)
        .schemas(schema)
        .defaultSchema(schema)
        .createSchemas(true)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  /** The consumer's {@code customer_totals} table in {@code consumerSchema}. */
  static Table<?> customerTotals(String consumerSchema) {
    return DSL.table(DSL.name(consumerSchema, "customer_totals"));
  }

  /** The {@code orders} table in {@code schema}. */
  static Table<?> orders(String schema) {
    return DSL.table(DSL.name(schema, "orders"));
  }
}
