package dev.txoutbox.schema;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.MappedTable;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;

/**
 * Where one outbox's tables are: a schema and a prefix put before every table, index, trigger,
 * function and Flyway history table name of the outbox. With prefix {@code bill_} in schema {@code
 * billing} the events are in {@code billing.bill_outbox_events}, the history in {@code
 * billing.bill_outbox_schema_history}, and the NOTIFY channel is {@code txoutbox_bill_billing}. The
 * empty prefix (the default) gives the names of earlier versions. Two outboxes in one schema with
 * different prefixes share nothing.
 *
 * <p>Every derived name is checked here, once, against PostgreSQL's 63-byte identifiers, so that
 * none is silently truncated by the server. The migrations ({@link OutboxSchema#migrate(
 * javax.sql.DataSource, OutboxTables)}), the jOOQ render mapping ({@link #renderMapping()}), the
 * writer, the relay, the admin API and the CLI's {@code --schema} and {@code --table-prefix} all
 * take their names from this value.
 *
 * <p>This class is immutable and thread-safe.
 */
public final class OutboxTables {

  /** PostgreSQL's longest identifier, in bytes ({@code NAMEDATALEN - 1}). */
  public static final int MAX_IDENTIFIER_LENGTH = 63;

  /**
   * Every name the migrations create with the prefix before it, without the prefix: the tables and
   * the view; the identity sequence PostgreSQL names after its column; the constraints and indexes,
   * including those of earlier versions that a later one drops; the NOTIFY trigger and its
   * function; and the three Flyway history tables with the primary key ({@code <history>_pk}) and
   * index ({@code <history>_s_idx}) Flyway creates on each. A test migrates everything with the
   * longest prefix and checks that the server holds exactly these names, untruncated.
   */
  static final List<String> DERIVED_NAMES =
      List.of(
          OutboxTables.EVENTS_TABLE,
          "outbox_events_seq_seq",
          "outbox_events_pkey",
          "outbox_events_pending_idx",
          "outbox_events_processed_idx",
          "outbox_events_dead_idx",
          "outbox_events_ready_idx",
          "outbox_events_waiting_idx",
          OutboxTables.DEAD_LETTERS_VIEW,
          OutboxTables.PROCESSED_EVENTS_TABLE,
          "processed_events_pkey",
          OutboxTables.RELAYS_TABLE,
          "outbox_relays_pkey",
          "outbox_events_notify",
          "outbox_events_aggregate_pending_idx",
          OutboxSchema.ORDERING_INDEX,
          OutboxSchema.ORDERING_DEAD_LETTER_INDEX,
          OutboxSchema.HISTORY_TABLE,
          OutboxSchema.HISTORY_TABLE + "_pk",
          OutboxSchema.HISTORY_TABLE + "_s_idx",
          OutboxSchema.NOTIFY_HISTORY_TABLE,
          OutboxSchema.NOTIFY_HISTORY_TABLE + "_pk",
          OutboxSchema.NOTIFY_HISTORY_TABLE + "_s_idx",
          OutboxSchema.ORDERING_HISTORY_TABLE,
          OutboxSchema.ORDERING_HISTORY_TABLE + "_pk",
          OutboxSchema.ORDERING_HISTORY_TABLE + "_s_idx");

  /**
   * The longest of the {@link #DERIVED_NAMES}: Flyway's index on the ordering history, {@code
   * outbox_ordering_schema_history_s_idx}.
   */
  static final String LONGEST_SUFFIX =
      DERIVED_NAMES.stream().max(Comparator.comparingInt(String::length)).orElseThrow();

  /**
   * Longest table prefix accepted: 27 characters (bytes: names are ASCII), PostgreSQL's 63-byte
   * identifiers less the longest name the migrations put it before, {@code
   * <prefix>outbox_ordering_schema_history_s_idx} (see {@link #DERIVED_NAMES}). With one more, the
   * server would truncate that name (notice 42622).
   */
  public static final int MAX_TABLE_PREFIX_LENGTH = MAX_IDENTIFIER_LENGTH - LONGEST_SUFFIX.length();

  /** The NOTIFY channel of an outbox is this, then the table prefix, then the schema. */
  static final String NOTIFY_CHANNEL_PREFIX = "txoutbox_";

  /**
   * Longest table prefix and schema name together: 54 characters, so that the NOTIFY channel {@code
   * txoutbox_<prefix><schema>} fits PostgreSQL's 63-byte identifiers.
   */
  public static final int MAX_PREFIX_AND_SCHEMA_LENGTH = 54; // 63 - "txoutbox_".length(), tested

  /** Empty, or a plain lower-case identifier start: the names mean the same quoted and unquoted. */
  private static final Pattern TABLE_PREFIX = Pattern.compile("([a-z_][a-z0-9_]*)?");

  private static final OutboxTables DEFAULTS = new OutboxTables(OutboxSchema.DEFAULT_SCHEMA, "");

  private final String schema;
  private final String tablePrefix;

  private OutboxTables(String schema, String tablePrefix) {
    this.schema = schema;
    this.tablePrefix = tablePrefix;
  }

  /** The outbox of earlier versions: schema {@code public}, no table prefix. */
  public static OutboxTables defaults() {
    return DEFAULTS;
  }

  /**
   * The outbox in {@code schema} with no table prefix.
   *
   * @throws NullPointerException if {@code schema} is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name ({@link
   *     OutboxSchema#requireSchemaName(String)})
   */
  public static OutboxTables in(String schema) {
    return of(schema, "");
  }

  /**
   * The outbox in {@code schema} whose names all start with {@code tablePrefix}.
   *
   * @param schema a schema name, checked with {@link OutboxSchema#requireSchemaName(String)}
   * @param tablePrefix empty, or up to {@link #MAX_TABLE_PREFIX_LENGTH} (27) characters of {@code
   *     a-z}, {@code 0-9} and {@code _} not starting with a digit, typically ending with {@code _}
   *     ({@code bill_})
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code schema} is not a valid schema name, or {@code
   *     tablePrefix} is not a valid prefix, or the two together are longer than {@value
   *     #MAX_PREFIX_AND_SCHEMA_LENGTH} characters
   */
  public static OutboxTables of(String schema, String tablePrefix) {
    return of(schema, tablePrefix, "schema", "tablePrefix");
  }

  /**
   * {@link #of(String, String)}, its errors naming the values {@code schemaName} and {@code
   * prefixName} (flags such as {@code --schema} and {@code --table-prefix}, or settings keys).
   */
  public static OutboxTables of(
      String schema, String tablePrefix, String schemaName, String prefixName) {
    OutboxSchema.requireSchemaName(schema, schemaName);
    Objects.requireNonNull(tablePrefix, prefixName);
    if (!TABLE_PREFIX.matcher(tablePrefix).matches()) {
      throw new IllegalArgumentException(
          prefixName
              + " must be empty or a lower-case identifier start of up to "
              + MAX_TABLE_PREFIX_LENGTH
              + " characters [a-z0-9_], not starting with a digit, but was '"
              + abbreviate(tablePrefix)
              + "'");
    }
    if (tablePrefix.length() > MAX_TABLE_PREFIX_LENGTH) {
      throw new IllegalArgumentException(
          prefixName
              + " must be at most "
              + MAX_TABLE_PREFIX_LENGTH
              + " characters, so that <"
              + prefixName
              + ">"
              + LONGEST_SUFFIX
              + " fits PostgreSQL's "
              + MAX_IDENTIFIER_LENGTH
              + "-byte identifiers, but has "
              + tablePrefix.length()
              + ": '"
              + abbreviate(tablePrefix)
              + "'");
    }
    if (tablePrefix.length() + schema.length() > MAX_PREFIX_AND_SCHEMA_LENGTH) {
      throw new IllegalArgumentException(
          prefixName
              + " and "
              + schemaName
              + " together must be at most "
              + MAX_PREFIX_AND_SCHEMA_LENGTH
              + " characters, so that the NOTIFY channel "
              + NOTIFY_CHANNEL_PREFIX
              + "<"
              + prefixName
              + "><"
              + schemaName
              + "> fits PostgreSQL's "
              + MAX_IDENTIFIER_LENGTH
              + "-byte identifiers, but have "
              + (tablePrefix.length() + schema.length())
              + " ('"
              + tablePrefix
              + "' and '"
              + schema
              + "')");
    }
    return tablePrefix.isEmpty() && schema.equals(DEFAULTS.schema)
        ? DEFAULTS
        : new OutboxTables(schema, tablePrefix);
  }

  /**
   * The same prefix in another schema.
   *
   * @throws IllegalArgumentException as {@link #of(String, String)}
   */
  public OutboxTables withSchema(String schema) {
    return of(schema, tablePrefix);
  }

  /**
   * The same schema with another prefix.
   *
   * @throws IllegalArgumentException as {@link #of(String, String)}
   */
  public OutboxTables withTablePrefix(String tablePrefix) {
    return of(schema, tablePrefix);
  }

  /** The schema holding the tables. */
  public String schema() {
    return schema;
  }

  /** The prefix of every name; empty by default. */
  public String tablePrefix() {
    return tablePrefix;
  }

  /**
   * {@code name} with the prefix put before it: {@code bill_} and {@code x} give {@code bill_x}.
   */
  public String name(String name) {
    return tablePrefix + Objects.requireNonNull(name, "name");
  }

  /** The events table, {@code <prefix>outbox_events}, without its schema. */
  public String eventsTable() {
    return name(EVENTS_TABLE);
  }

  /** The consumer's table, {@code <prefix>processed_events}, without its schema. */
  public String processedEventsTable() {
    return name(PROCESSED_EVENTS_TABLE);
  }

  /** The dead-letter view, {@code <prefix>outbox_dead_letters}, without its schema. */
  public String deadLettersView() {
    return name(DEAD_LETTERS_VIEW);
  }

  /**
   * The relays' heartbeats, {@code <prefix>outbox_relays}, without its schema: one row per running
   * relay, written by the relay itself.
   */
  public String relaysTable() {
    return name(RELAYS_TABLE);
  }

  /** The Flyway history table of the outbox migrations, {@code <prefix>outbox_schema_history}. */
  public String historyTable() {
    return name(OutboxSchema.HISTORY_TABLE);
  }

  /**
   * The Flyway history table of the NOTIFY trigger, {@code <prefix>outbox_notify_schema_history}.
   */
  public String notifyHistoryTable() {
    return name(OutboxSchema.NOTIFY_HISTORY_TABLE);
  }

  /** The Flyway history table of the ordering indexes. */
  public String orderingHistoryTable() {
    return name(OutboxSchema.ORDERING_HISTORY_TABLE);
  }

  /**
   * The ordered mode's index of pending events: {@code <prefix>}{@value
   * OutboxSchema#ORDERING_INDEX}.
   */
  public String orderingIndex() {
    return name(OutboxSchema.ORDERING_INDEX);
  }

  /**
   * The ordered mode's index of dead letters: {@code <prefix>}{@value
   * OutboxSchema#ORDERING_DEAD_LETTER_INDEX}.
   */
  public String orderingDeadLetterIndex() {
    return name(OutboxSchema.ORDERING_DEAD_LETTER_INDEX);
  }

  /**
   * The channel the opt-in NOTIFY trigger signals: {@code txoutbox_<prefix><schema>}; {@code
   * txoutbox_<schema>} without a prefix, as in earlier versions.
   */
  public String notifyChannel() {
    return NOTIFY_CHANNEL_PREFIX + tablePrefix + schema;
  }

  /**
   * A jOOQ render mapping that sends the generated model's schema ({@value
   * OutboxSchema#MODEL_SCHEMA}) to {@link #schema()} and, with a prefix, each of its tables to the
   * prefixed name.
   */
  public RenderMapping renderMapping() {
    MappedSchema mapped =
        new MappedSchema().withInput(OutboxSchema.MODEL_SCHEMA).withOutput(schema);
    if (!tablePrefix.isEmpty()) {
      mapped.withTables(
          mappedTable(EVENTS_TABLE),
          mappedTable(PROCESSED_EVENTS_TABLE),
          mappedTable(DEAD_LETTERS_VIEW),
          mappedTable(RELAYS_TABLE));
    }
    return new RenderMapping().withSchemata(mapped);
  }

  /**
   * A copy of {@code settings} (or of jOOQ's defaults when null) that renders the generated model
   * onto these tables. The caller's other settings are kept; a render mapping of its own is
   * replaced.
   */
  public Settings settings(Settings settings) {
    Settings copy = settings == null ? new Settings() : (Settings) settings.clone();
    return copy.withRenderMapping(renderMapping());
  }

  private MappedTable mappedTable(String table) {
    return new MappedTable().withInput(table).withOutput(name(table));
  }

  static final String EVENTS_TABLE = "outbox_events";
  static final String PROCESSED_EVENTS_TABLE = "processed_events";
  static final String DEAD_LETTERS_VIEW = "outbox_dead_letters";
  static final String RELAYS_TABLE = "outbox_relays";

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 80) + "…";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof OutboxTables other
        && schema.equals(other.schema)
        && tablePrefix.equals(other.tablePrefix);
  }

  @Override
  public int hashCode() {
    return schema.hashCode() * 31 + tablePrefix.hashCode();
  }

  /** {@code billing.bill_*}, or {@code billing} without a prefix. */
  @Override
  public String toString() {
    return tablePrefix.isEmpty() ? schema : schema + "." + tablePrefix + "*";
  }
}
