package dev.txoutbox.fleet;

import dev.txoutbox.schema.SchemaMigrations;
import javax.sql.DataSource;

/**
 * The fleet's control tables: the registry of outboxes, the nodes and the leases, created by a
 * Flyway migration shipped in this module ({@value #LOCATION}) in a schema of their own, with their
 * own history table ({@value #HISTORY_TABLE}), so they never collide with an application's
 * migrations or with an outbox's; the Flyway set-up is the one every txoutbox table set uses
 * ({@link SchemaMigrations}).
 *
 * <p>Why a table rather than a directory of files (a ConfigMap): a change is transactional (an
 * entry and its lease row appear together, or not at all), every node sees the same registry at
 * once without a volume sync delay, the same database already decides who holds which lease, and a
 * change can be announced with NOTIFY at commit ({@value #CHANGE_CHANNEL}).
 *
 * <p>Thread-safe: it holds no state.
 */
public final class FleetSchema {

  /** The control schema unless told otherwise: {@value}. */
  public static final String DEFAULT_SCHEMA = "txoutbox_fleet";

  /** Where the migrations are: {@value}. */
  public static final String LOCATION = "classpath:db/migration/txoutbox-fleet";

  /** Flyway's history table for these migrations: {@value}. */
  public static final String HISTORY_TABLE = "fleet_schema_history";

  /** The channel every registry change is announced on, at commit: {@value}. */
  public static final String CHANGE_CHANNEL = "txoutbox_fleet";

  private FleetSchema() {}

  /**
   * Creates or upgrades the control tables in {@code schema}, creating the schema if needed. Safe
   * to call from several nodes at once: Flyway serialises them with an advisory lock.
   *
   * @return the number of migrations applied by this call (0 when up to date)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrate(DataSource dataSource, String schema) {
    return SchemaMigrations.migrate(
        dataSource, schema, LOCATION, HISTORY_TABLE, FleetSchema.class.getClassLoader());
  }
}
