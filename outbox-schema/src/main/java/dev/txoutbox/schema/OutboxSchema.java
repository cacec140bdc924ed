package dev.txoutbox.schema;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;

/**
 * Creates and upgrades the outbox tables, and maps the generated jOOQ model onto the schema that
 * holds them.
 *
 * <p>The migrations live in their own classpath location ({@value #LOCATION}) with their own Flyway
 * history table ({@value #HISTORY_TABLE}), so they never mix with the application's own migrations,
 * even in the same schema. The generated jOOQ classes ({@code dev.txoutbox.schema.model}, schema
 * class {@code OutboxModel}) name the schema {@value #MODEL_SCHEMA}; {@link #renderMapping(String)}
 * renames it to the deployed schema at runtime, and {@link OutboxTables#renderMapping()} also the
 * tables to their prefixed names.
 *
 * <p>Every name the migrations create, the history tables included, follows the {@link
 * OutboxTables#tablePrefix() table prefix} of the {@link OutboxTables} given, so several outboxes
 * can share one schema. The prefix reaches the scripts as the Flyway placeholder {@code
 * table_prefix}, written {@code /*{table_prefix}*}{@code /}: a comment to any other reader, so jOOQ
 * generates the model from the same scripts and an application's own Flyway pointed at {@value
 * #LOCATION} creates the unprefixed names.
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

  /**
   * Longest schema name accepted: 54 characters (bytes: names are ASCII), so that the NOTIFY
   * channel {@code txoutbox_<schema>} fits PostgreSQL's 63-byte identifiers.
   */
  public static final int MAX_SCHEMA_NAME_LENGTH = 54;

  /** Plain lower-case identifiers only: they mean the same quoted and unquoted. */
  private static final Pattern SCHEMA_NAME = Pattern.compile("[a-z_][a-z0-9_]*");

  /**
   * PostgreSQL's reserved key words (categories R and T of {@code pg_get_keywords()} in PostgreSQL
   * 15): unquoted they cannot name a schema, so every hand-written query would have to quote them.
   */
  private static final Set<String> RESERVED_WORDS =
      Set.of(
          "all",
          "analyse",
          "analyze",
          "and",
          "any",
          "array",
          "as",
          "asc",
          "asymmetric",
          "authorization",
          "binary",
          "both",
          "case",
          "cast",
          "check",
          "collate",
          "collation",
          "column",
          "concurrently",
          "constraint",
          "create",
          "cross",
          "current_catalog",
          "current_date",
          "current_role",
          "current_schema",
          "current_time",
          "current_timestamp",
          "current_user",
          "default",
          "deferrable",
          "desc",
          "distinct",
          "do",
          "else",
          "end",
          "except",
          "false",
          "fetch",
          "for",
          "foreign",
          "freeze",
          "from",
          "full",
          "grant",
          "group",
          "having",
          "ilike",
          "in",
          "initially",
          "inner",
          "intersect",
          "into",
          "is",
          "isnull",
          "join",
          "lateral",
          "leading",
          "left",
          "like",
          "limit",
          "localtime",
          "localtimestamp",
          "natural",
          "not",
          "notnull",
          "null",
          "offset",
          "on",
          "only",
          "or",
          "order",
          "outer",
          "overlaps",
          "placing",
          "primary",
          "references",
          "returning",
          "right",
          "select",
          "session_user",
          "similar",
          "some",
          "symmetric",
          "table",
          "tablesample",
          "then",
          "to",
          "trailing",
          "true",
          "union",
          "unique",
          "user",
          "using",
          "variadic",
          "verbose",
          "when",
          "where",
          "window",
          "with");

  private OutboxSchema() {}

  /**
   * Creates or upgrades the outbox tables in {@code schema}, creating the schema if needed; the
   * same as {@code migrate(dataSource, OutboxTables.in(schema))}.
   *
   * @param dataSource where to migrate; a connection with the right to create tables
   * @param schema the target schema, a lower-case PostgreSQL identifier such as {@code billing}
   * @return the number of migrations applied by this call (0 when already up to date)
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name (see {@link
   *     #requireSchemaName(String)})
   */
  public static int migrate(DataSource dataSource, String schema) {
    return migrate(dataSource, OutboxTables.in(schema));
  }

  /**
   * Creates or upgrades the outbox tables at {@code tables}, creating the schema if needed. Every
   * name the migrations create (tables, view, indexes, and the history table {@link
   * OutboxTables#historyTable()}) starts with {@link OutboxTables#tablePrefix()}, so outboxes with
   * different prefixes live side by side in one schema. Safe to call from several processes at
   * once: Flyway serialises them with an advisory lock.
   *
   * @param dataSource where to migrate; a connection with the right to create tables
   * @param tables the schema and the table prefix
   * @return the number of migrations applied by this call (0 when already up to date)
   * @throws NullPointerException if an argument is null
   */
  public static int migrate(DataSource dataSource, OutboxTables tables) {
    return run(dataSource, tables, LOCATION, tables.historyTable());
  }

  /**
   * Installs the opt-in NOTIFY trigger in {@code schema}; the same as {@code
   * migrateNotifyTrigger(dataSource, OutboxTables.in(schema))}.
   *
   * @return the number of migrations applied by this call
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrateNotifyTrigger(DataSource dataSource, String schema) {
    return migrateNotifyTrigger(dataSource, OutboxTables.in(schema));
  }

  /**
   * Installs the opt-in statement-level NOTIFY trigger on the events table of {@code tables}, for
   * relays in other processes that use LISTEN/NOTIFY. Call after {@link #migrate(DataSource,
   * OutboxTables)}. Every inserting statement then notifies channel {@link
   * OutboxTables#notifyChannel()}.
   *
   * @return the number of migrations applied by this call
   * @throws NullPointerException if an argument is null
   */
  public static int migrateNotifyTrigger(DataSource dataSource, OutboxTables tables) {
    return run(dataSource, tables, NOTIFY_LOCATION, tables.notifyHistoryTable());
  }

  /**
   * Installs or upgrades the ordered mode's indexes in {@code schema}; the same as {@code
   * migrateOrderingIndex(dataSource, OutboxTables.in(schema))}.
   *
   * @return the number of migrations applied by this call
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static int migrateOrderingIndex(DataSource dataSource, String schema) {
    return migrateOrderingIndex(dataSource, OutboxTables.in(schema));
  }

  /**
   * Installs the opt-in indexes that the relay's per-aggregate ordered mode needs, or upgrades
   * them: {@value #ORDERING_INDEX} over pending rows and {@value #ORDERING_DEAD_LETTER_INDEX} over
   * dead letters (each after the table prefix), both on {@code (aggregate_type, aggregate_id,
   * seq)}. A relay in ordered mode refuses to start without them. Call after {@link
   * #migrate(DataSource, OutboxTables)}. Each index costs every insert one more entry, so only
   * deployments that use ordered mode install them. The indexes are built with a plain {@code
   * CREATE INDEX}, which holds back writers for the time of the build.
   *
   * @return the number of migrations applied by this call
   * @throws NullPointerException if an argument is null
   */
  public static int migrateOrderingIndex(DataSource dataSource, OutboxTables tables) {
    return run(dataSource, tables, ORDERING_LOCATION, tables.orderingHistoryTable());
  }

  /**
   * The NOTIFY channel the opt-in trigger signals for {@code schema} without a table prefix: {@code
   * txoutbox_<schema>}. See {@link OutboxTables#notifyChannel()}.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static String notifyChannel(String schema) {
    return OutboxTables.in(schema).notifyChannel();
  }

  /**
   * A jOOQ render mapping that sends the generated model's schema to {@code schema}. See {@link
   * OutboxTables#renderMapping()} for prefixed tables.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static RenderMapping renderMapping(String schema) {
    return OutboxTables.in(schema).renderMapping();
  }

  /**
   * A copy of {@code settings} (or of jOOQ's defaults when null) that renders the outbox tables in
   * {@code schema}. The caller's other settings are kept. See {@link
   * OutboxTables#settings(Settings)} for prefixed tables.
   *
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name
   */
  public static Settings withSchema(Settings settings, String schema) {
    return OutboxTables.in(schema).settings(settings);
  }

  /**
   * Checks a schema name against what works at every step: Flyway's migration, jOOQ's rendering,
   * hand-written SQL with or without quotes, and the NOTIFY channel {@code txoutbox_<schema>}. The
   * writer, the relay, the admin API, the Guice module and the CLI's {@code --schema} all call this
   * one check.
   *
   * @return {@code schema}
   * @throws NullPointerException if {@code schema} is null
   * @throws IllegalArgumentException if {@code schema} is not 1 to {@value #MAX_SCHEMA_NAME_LENGTH}
   *     characters of {@code a-z}, {@code 0-9} and {@code _} not starting with a digit, or starts
   *     with {@code pg_} (reserved for PostgreSQL's system schemas), or is {@code
   *     information_schema}, or is a reserved SQL key word such as {@code user}
   */
  public static String requireSchemaName(String schema) {
    return requireSchemaName(schema, "schema");
  }

  /**
   * {@link #requireSchemaName(String)}, its errors naming the value {@code name} (a flag such as
   * {@code --schema}, or a settings key) instead of {@code schema}.
   *
   * @return {@code schema}
   */
  public static String requireSchemaName(String schema, String name) {
    Objects.requireNonNull(schema, name);
    if (!SCHEMA_NAME.matcher(schema).matches()) {
      throw new IllegalArgumentException(
          name
              + " must be a lower-case identifier of 1 to "
              + MAX_SCHEMA_NAME_LENGTH
              + " characters [a-z0-9_], not starting with a digit, but was '"
              + abbreviate(schema)
              + "'");
    }
    if (schema.length() > MAX_SCHEMA_NAME_LENGTH) {
      throw new IllegalArgumentException(
          name
              + " must be at most "
              + MAX_SCHEMA_NAME_LENGTH
              + " characters, so that its NOTIFY channel "
              + OutboxTables.NOTIFY_CHANNEL_PREFIX
              + "<schema> fits PostgreSQL's 63-byte identifiers, but has "
              + schema.length()
              + ": '"
              + abbreviate(schema)
              + "'");
    }
    if (schema.startsWith("pg_")) {
      throw new IllegalArgumentException(
          name
              + " must not start with pg_ (PostgreSQL reserves it for system schemas) but was '"
              + schema
              + "'");
    }
    if (schema.equals("information_schema")) {
      throw new IllegalArgumentException(
          name + " must not be information_schema (PostgreSQL's catalog views)");
    }
    if (RESERVED_WORDS.contains(schema)) {
      throw new IllegalArgumentException(
          name
              + " must not be a reserved SQL key word (it would need quotes in every query) but"
              + " was '"
              + schema
              + "'");
    }
    return schema;
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "…";
  }

  /**
   * The placeholder the migrations put before every name they create, written as a comment ({@code
   * /*{table_prefix}*}{@code /}) so that the same scripts stay plain SQL: jOOQ's code generation
   * reads them without a value, and a Flyway of the application's own that knows nothing of it
   * creates the names without a prefix.
   */
  static final String TABLE_PREFIX_PLACEHOLDER = "table_prefix";

  /**
   * Migrates {@code location}, after bringing the history rows that earlier snapshots wrote up to
   * today's checksums (see {@link EarlierChecksums}).
   */
  private static int run(
      DataSource dataSource, OutboxTables tables, String location, String historyTable) {
    Flyway flyway = flyway(dataSource, tables, location, historyTable);
    EarlierChecksums.realign(dataSource, tables, location, historyTable);
    return flyway.migrate().migrationsExecuted;
  }

  private static Flyway flyway(
      DataSource dataSource, OutboxTables tables, String location, String historyTable) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(tables, "tables");
    return SchemaMigrations.configure(
            dataSource,
            tables.schema(),
            location,
            historyTable,
            OutboxSchema.class.getClassLoader())
        .placeholderPrefix("/*{")
        .placeholderSuffix("}*/")
        .placeholders(Map.of(TABLE_PREFIX_PLACEHOLDER, tables.tablePrefix()))
        .load();
  }
}
