package dev.txoutbox.schema;

import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;

/**
 * Creates and upgrades the outbox tables, and maps the generated jOOQ model onto the schema that
 * holds them.
 *
 * <p>The migrations live in their own classpath location ({@value #LOCATION}) with their own Flyway
 * history table ({@value #HISTORY_TABLE}), so they never mix with the application's own migrations,
 * even in the same schema. The generated jOOQ classes name the schema {@value #MODEL_SCHEMA};
 * {@link #renderMapping(String)} renames it to the deployed schema at runtime.
 *
 * <p>This class is thread-safe: it holds no state.
 */
public final class OutboxSchema {

  /** The schema used when none is given. */
  public static final String DEFAULT_SCHEMA = "public";

  /** The schema name the generated jOOQ classes carry; mapped at runtime to the real one. */
  public static final String MODEL_SCHEMA = "outbox";

  /** Classpath location of the outbox migrations. */
  public static final String LOCATION = "classpath:db/migration/outbox";

  /** Classpath location of the opt-in NOTIFY trigger migration. */
  public static final String NOTIFY_LOCATION = "classpath:db/migration/outbox-notify";

  /** Classpath location of the opt-in index for the relay's per-aggregate ordered mode. */
  public static final String ORDERING_LOCATION = "classpath:db/migration/outbox-ordering";

  /** Flyway history table of the opt-in ordering index. */
  public static final String ORDERING_HISTORY_TABLE = "outbox_ordering_schema_history";

  /**
   * The index the relay's per-aggregate ordered mode walks: {@code (aggregate_type, aggregate_id,
   * seq)} over pending rows. Installed by {@link #migrateOrderingIndex(DataSource, String)}.
   */
  public static final String ORDERING_INDEX = "outbox_events_pending_aggregate_idx";

  /**
   * The index of dead letters by {@code (aggregate_type, aggregate_id, seq)} with which the ordered
   * mode halts an aggregate at its dead letter. Installed by {@link
   * #migrateOrderingIndex(DataSource, String)}.
   */
  public static final String ORDERING_DEAD_LETTER_INDEX = "outbox_events_dead_aggregate_idx";

  /** Flyway history table of the outbox migrations. */
  public static final String HISTORY_TABLE = "outbox_schema_history";

  /** Flyway history table of the opt-in NOTIFY trigger. */
  public static final String NOTIFY_HISTORY_TABLE = "outbox_notify_schema_history";

  /** PostgreSQL identifiers are at most 63 bytes; we accept plain lower-case names only. */
  private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private OutboxSchema() {}

  /**
   * Creates or upgrades the outbox tables in {@code schema}, creating the schema if needed. Safe to
   * call from several processes at once: Flyway serialises them with an advisory lock.
   *
   * @param dataSource where to migrate; a connection with the right to create tables
   * @param schema the target schema, a lower-case PostgreSQL identifier such as {@code billing}
   * @return the number of migrations applied by this call (0 when already up to date)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a plain lower-case identifier of at
   *     most 63 characters
   */
  public static int migrate(DataSource dataSource, String schema) {
    return flyway(dataSource, schema, LOCATION, HISTORY_TABLE).migrate().migrationsExecuted;
  }

  /**
   * Installs the opt-in statement-level NOTIFY trigger on {@code schema.outbox_events}, for relays
   * in other processes that use LISTEN/NOTIFY. Call after {@link #migrate(DataSource, String)}.
   * Every inserting statement then notifies channel {@link #notifyChannel(String)}.
   *
   * @return the number of migrations applied by this call
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrateNotifyTrigger(DataSource dataSource, String schema) {
    return flyway(dataSource, schema, NOTIFY_LOCATION, NOTIFY_HISTORY_TABLE)
        .migrate()
        .migrationsExecuted;
  }

  /**
   * Installs the opt-in indexes that the relay's per-aggregate ordered mode needs, or upgrades
   * them: {@value #ORDERING_INDEX} over pending rows and {@value #ORDERING_DEAD_LETTER_INDEX} over
   * dead letters, both on {@code (aggregate_type, aggregate_id, seq)}. A relay in ordered mode
   * refuses to start without them. Call after {@link #migrate(DataSource, String)}. Each index
   * costs every insert one more entry, so only deployments that use ordered mode install them. The
   * indexes are built with a plain {@code CREATE INDEX}, which holds back writers for the time of
   * the build.
   *
   * @return the number of migrations applied by this call
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrateOrderingIndex(DataSource dataSource, String schema) {
    return flyway(dataSource, schema, ORDERING_LOCATION, ORDERING_HISTORY_TABLE)
        .migrate()
        .migrationsExecuted;
  }

  /**
   * The NOTIFY channel the opt-in trigger signals for {@code schema}.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static String notifyChannel(String schema) {
    return "txoutbox_" + requireSchemaName(schema);
  }

  /**
   * A jOOQ render mapping that sends the generated model's schema to {@code schema}.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static RenderMapping renderMapping(String schema) {
    return new RenderMapping()
        .withSchemata(
            new MappedSchema().withInput(MODEL_SCHEMA).withOutput(requireSchemaName(schema)));
  }

  /**
   * A copy of {@code settings} (or of jOOQ's defaults when null) that renders the outbox tables in
   * {@code schema}. The caller's other settings are kept.
   */
  public static Settings withSchema(Settings settings, String schema) {
    Settings copy = settings == null ? new Settings() : (Settings) settings.clone();
    return copy.withRenderMapping(renderMapping(schema));
  }

  /**
   * Checks a schema name.
   *
   * @return {@code schema}
   * @throws NullPointerException if {@code schema} is null
   * @throws IllegalArgumentException if {@code schema} is not a lower-case identifier of 1 to 63
   *     characters made of {@code a-z}, {@code 0-9} and {@code _}, not starting with a digit
   */
  public static String requireSchemaName(String schema) {
    Objects.requireNonNull(schema, "schema");
    if (!SCHEMA_NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException(
          "schema must be a lower-case identifier of 1 to 63 characters [a-z0-9_], not starting"
              + " with a digit, but was '"
              + schema
              + "'");
    }
    return schema;
  }

  private static Flyway flyway(
      DataSource dataSource, String schema, String location, String historyTable) {
    Objects.requireNonNull(dataSource, "dataSource");
    requireSchemaName(schema);
    return Flyway.configure(OutboxSchema.class.getClassLoader())
        .dataSource(dataSource)
        .locations(location)
        .table(historyTable)
        .schemas(schema)
        .defaultSchema(schema)
        .createSchemas(true)
        // The schema may already hold the application's tables: start our history at zero
        // instead of refusing a non-empty schema.
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load();
  }
}
