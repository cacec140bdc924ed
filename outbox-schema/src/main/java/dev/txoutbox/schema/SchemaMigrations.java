package dev.txoutbox.schema;

import java.util.Objects;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/**
 * The one Flyway set-up of every table set txoutbox ships (the outbox's, the inbox's, the fleet's
 * control tables): the scripts of one classpath location, recorded in a history table of their own
 * in the target schema, the schema created if needed, and the history started at version 0 when the
 * schema already holds other tables (the application's own, or another module's), so that these
 * migrations never mix with an application's. {@link OutboxSchema} adds its table prefix on top of
 * it; {@code OutboxInbox.migrate} and {@code FleetSchema.migrate} use it as it is.
 *
 * <p>This class is thread-safe: it holds no state.
 */
public final class SchemaMigrations {

  private SchemaMigrations() {}

  /**
   * Creates or upgrades, in {@code schema}, the tables of the migrations at {@code location},
   * creating the schema if needed. Safe to call from several processes at once: Flyway serialises
   * them with an advisory lock.
   *
   * @param dataSource where to migrate; a connection with the right to create tables
   * @param schema the target schema (see {@link OutboxSchema#requireSchemaName(String)})
   * @param location the scripts, such as {@code classpath:db/migration/outbox-inbox}
   * @param historyTable Flyway's history table for these scripts, in {@code schema}
   * @param classLoader the class loader that sees {@code location}
   * @return the number of migrations applied by this call (0 when already up to date)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrate(
      DataSource dataSource,
      String schema,
      String location,
      String historyTable,
      ClassLoader classLoader) {
    return configure(dataSource, schema, location, historyTable, classLoader)
        .load()
        .migrate()
        .migrationsExecuted;
  }

  /** The configuration {@link #migrate} loads, for a caller that adds to it. */
  static FluentConfiguration configure(
      DataSource dataSource,
      String schema,
      String location,
      String historyTable,
      ClassLoader classLoader) {
    Objects.requireNonNull(dataSource, "dataSource");
    OutboxSchema.requireSchemaName(schema);
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(historyTable, "historyTable");
    Objects.requireNonNull(classLoader, "classLoader");
    return Flyway.configure(classLoader)
        .dataSource(dataSource)
        .locations(location)
        .table(historyTable)
        .schemas(schema)
        .defaultSchema(schema)
        .createSchemas(true)
        // The schema may already hold the application's tables: start our history at zero
        // instead of refusing a non-empty schema.
        .baselineOnMigrate(true)
        .baselineVersion("0");
  }
}
