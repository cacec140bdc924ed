package dev.txoutbox.wal;

import dev.txoutbox.schema.OutboxTables;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates or checks the publication and the replication slot, or refuses with the SQL and the
 * privileges needed. The catalogs {@code pg_publication}, {@code pg_publication_tables} and {@code
 * pg_replication_slots} are outside the generated model: named fields.
 */
final class WalSetup {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  private WalSetup() {}

  private static final Table<Record> PUBLICATION =
      DSL.table(DSL.name("pg_catalog", "pg_publication"));
  private static final Table<Record> PUBLICATION_TABLES =
      DSL.table(DSL.name("pg_catalog", "pg_publication_tables"));
  private static final Table<Record> SLOTS =
      DSL.table(DSL.name("pg_catalog", "pg_replication_slots"));

  // The columns of pg_replication_slots that WalSlot shows and the checks read.
  static final Field<String> SLOT_NAME = DSL.field(DSL.name("slot_name"), String.class);
  static final Field<String> SLOT_TYPE = DSL.field(DSL.name("slot_type"), String.class);
  static final Field<String> PLUGIN = DSL.field(DSL.name("plugin"), String.class);
  static final Field<String> DATABASE = DSL.field(DSL.name("database"), String.class);
  static final Field<Boolean> ACTIVE = DSL.field(DSL.name("active"), Boolean.class);
  static final Field<Integer> ACTIVE_PID = DSL.field(DSL.name("active_pid"), Integer.class);
  static final Field<String> CONFIRMED_FLUSH_LSN =
      DSL.field(DSL.name("confirmed_flush_lsn"), String.class);
  static final Field<String> RESTART_LSN = DSL.field(DSL.name("restart_lsn"), String.class);
  static final Field<String> WAL_STATUS = DSL.field(DSL.name("wal_status"), String.class);
  static final Field<Long> SAFE_WAL_SIZE = DSL.field(DSL.name("safe_wal_size"), Long.class);

  /**
   * Bytes of WAL between the server's current insert position and the slot's confirmed one. The
   * insert position, not {@code pg_current_wal_lsn()} (the write position), which stays behind a
   * commit until the WAL writer runs when {@code synchronous_commit} is off. Catalog functions: no
   * generated model for them.
   */
  static final Field<Long> LAG_BYTES =
      DSL.field(
              "pg_wal_lsn_diff(pg_current_wal_insert_lsn(), {0})",
              Long.class, DSL.field(DSL.name("confirmed_flush_lsn")))
          .as("lag_bytes");

  // The columns of pg_publication.
  private static final Field<String> PUB_NAME = DSL.field(DSL.name("pubname"), String.class);
  static final Field<Boolean> PUB_ALL_TABLES = DSL.field(DSL.name("puballtables"), Boolean.class);
  private static final List<Field<Boolean>> PUB_OPERATIONS =
      List.of(
          DSL.field(DSL.name("pubinsert"), Boolean.class),
          DSL.field(DSL.name("pubupdate"), Boolean.class),
          DSL.field(DSL.name("pubdelete"), Boolean.class),
          DSL.field(DSL.name("pubtruncate"), Boolean.class));

  /**
   * Bytes of WAL between the server's current position and the slot's confirmed one: what the slot
   * holds back, or -1 if the slot does not exist.
   */
  static long lagBytes(DSLContext dsl, String slot) {
    Long bytes = dsl.select(LAG_BYTES).from(SLOTS).where(SLOT_NAME.eq(slot)).fetchOne(LAG_BYTES);
    return bytes == null ? -1 : bytes;
  }

  /** The row of {@code slot} in {@code pg_replication_slots}, with its lag, or null. */
  static @Nullable Record slot(DSLContext dsl, String slot) {
    return dsl.select(
            SLOT_NAME,
            SLOT_TYPE,
            PLUGIN,
            DATABASE,
            ACTIVE,
            ACTIVE_PID,
            CONFIRMED_FLUSH_LSN,
            RESTART_LSN,
            WAL_STATUS,
            SAFE_WAL_SIZE,
            LAG_BYTES)
        .from(SLOTS)
        .where(SLOT_NAME.eq(slot))
        .fetchOne();
  }

  /** The row of {@code publication} in {@code pg_publication}, or null. */
  static @Nullable Record publication(DSLContext dsl, String publication) {
    List<Field<?>> fields = new ArrayList<>(PUB_OPERATIONS);
    fields.add(PUB_ALL_TABLES);
    return dsl.select(fields).from(PUBLICATION).where(PUB_NAME.eq(publication)).fetchOne();
  }

  /** What a row of {@link #publication} publishes: insert, update, delete, truncate. */
  static List<String> publishes(Record publication) {
    List<String> out = new ArrayList<>();
    for (Field<Boolean> f : PUB_OPERATIONS) {
      if (Boolean.TRUE.equals(publication.get(f))) {
        out.add(f.getName().substring("pub".length()));
      }
    }
    return out;
  }

  /** The tables {@code publication} publishes, as {@code schema.table}, sorted. */
  static List<String> publishedTables(DSLContext dsl, String publication) {
    Field<String> schema = DSL.field(DSL.name("schemaname"), String.class);
    Field<String> table = DSL.field(DSL.name("tablename"), String.class);
    return dsl.select(schema, table)
        .from(PUBLICATION_TABLES)
        .where(PUB_NAME.eq(publication))
        .orderBy(schema, table)
        .fetch(r -> r.value1() + "." + r.value2());
  }

  /** Drops {@code slot}; the server refuses an active one (55006) or a missing one (42704). */
  static void dropSlot(DSLContext dsl, String slot) {
    // A function call with no model: jOOQ renders it through DSL.function.
    dsl.select(DSL.function("pg_drop_replication_slot", Object.class, DSL.val(slot))).fetch();
    log.info("dropped replication slot {}", slot);
  }

  static IllegalStateException noSuchSlot(String slot) {
    return new IllegalStateException("replication slot " + slot + " does not exist");
  }

  static IllegalStateException slotActive(String slot, @Nullable Integer pid) {
    String who = pid == null ? "a connection" : "process " + pid;
    return new IllegalStateException(
        "replication slot "
            + slot
            + " is active: "
            + who
            + " reads it (a running relay). Stop that relay first"
            + (pid == null
                ? ""
                : ", or end the connection with SELECT pg_terminate_backend(" + pid + ")")
            + "; nothing dropped");
  }

  /** The statement that creates the publication. */
  static String createPublicationSql(String publication, OutboxTables tables) {
    return "CREATE PUBLICATION "
        + DSL.name(publication)
        + " FOR TABLE "
        + DSL.name(tables.schema(), tables.eventsTable())
        + " WITH (publish = 'insert')";
  }

  /** The statement that creates the slot. */
  static String createSlotSql(String slot) {
    return "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')";
  }

  /**
   * Makes sure the publication exists and publishes inserts of the outbox table only.
   *
   * @throws IllegalStateException if it cannot be created, or exists with another shape
   */
  static void ensurePublication(
      DSLContext dsl, String publication, OutboxTables tables, boolean create) {
    Record pub = publication(dsl, publication);
    String sql = createPublicationSql(publication, tables);
    if (pub == null) {
      if (!create) {
        throw new IllegalStateException(
            "publication " + publication + " does not exist and creating it is off: run " + sql);
      }
      try {
        // DDL: jOOQ has no CREATE PUBLICATION; the names are quoted by DSL.name above.
        dsl.execute(sql);
        log.info("created publication {}: {}", publication, sql);
      } catch (DataAccessException e) {
        throw new IllegalStateException(
            "cannot create publication "
                + publication
                + " ("
                + e.sqlState()
                + ": "
                + e.getMessage()
                + "). Run as the table's owner (CREATE on the database is needed too): "
                + sql,
            e);
      }
      return;
    }
    List<String> publishes = publishes(pub);
    if (publishes.contains("update") || publishes.contains("delete")) {
      throw new IllegalStateException(
          "publication "
              + publication
              + " publishes updates or deletes: every table in it then needs a replica identity,"
              + " and the relay reads inserts only. Drop it and create it as: "
              + sql);
    }
    List<String> published =
        dsl.select(DSL.field(DSL.name("schemaname"), String.class))
            .from(PUBLICATION_TABLES)
            .where(PUB_NAME.eq(publication))
            .and(DSL.field(DSL.name("tablename"), String.class).eq(tables.eventsTable()))
            .and(DSL.field(DSL.name("schemaname"), String.class).eq(tables.schema()))
            .fetch(0, String.class);
    if (published.isEmpty()) {
      throw new IllegalStateException(
          "publication "
              + publication
              + " does not publish "
              + tables.schema()
              + "."
              + tables.eventsTable()
              + ": add it (ALTER PUBLICATION "
              + DSL.name(publication)
              + " ADD TABLE "
              + DSL.name(tables.schema(), tables.eventsTable())
              + ") or create the relay's own: "
              + sql);
    }
    requireWholeInserts(dsl, publication, tables);
  }

  /** The first PostgreSQL version whose publications have column lists and row filters. */
  private static final int COLUMN_LISTS_SINCE = 150000;

  /**
   * Refuses a publication that sends the outbox table's inserts only in part (PostgreSQL 15 and
   * later): with a column list, an insert without {@code payload} cannot be published; with a row
   * filter, the inserts it leaves out never reach the relay. One that appears while the relay runs
   * makes its inserts unreadable ({@link OutboxInserts}), left to the polling relay.
   *
   * @throws IllegalStateException naming the column list or row filter and the statement that
   *     removes them
   */
  static void requireWholeInserts(DSLContext dsl, String publication, OutboxTables tables) {
    int version =
        dsl.fetchSingle("SELECT current_setting('server_version_num')::int").get(0, Integer.class);
    if (version < COLUMN_LISTS_SINCE) {
      return;
    }
    Name table = DSL.name(tables.schema(), tables.eventsTable());
    // pg_publication_rel (PostgreSQL 15's prattrs and prqual) has no jOOQ model: plain SQL.
    Record rel =
        dsl.fetchOne(
            "SELECT (SELECT string_agg(a.attname, ', ' ORDER BY a.attnum) FROM pg_catalog.pg_attribute a"
                + "   WHERE a.attrelid = r.prrelid AND a.attnum = ANY (r.prattrs::int2[])),"
                + " pg_catalog.pg_get_expr(r.prqual, r.prrelid)"
                + " FROM pg_catalog.pg_publication_rel r"
                + " JOIN pg_catalog.pg_publication p ON p.oid = r.prpubid"
                + " WHERE p.pubname = {0} AND r.prrelid = to_regclass({1})",
            publication, table.toString());
    if (rel == null) {
      return;
    }
    @Nullable String columns = rel.get(0, String.class);
    @Nullable String filter = rel.get(1, String.class);
    if (columns == null && filter == null) {
      return;
    }
    List<String> parts = new ArrayList<>();
    if (columns != null) {
      parts.add("a column list (" + columns + ")");
    }
    if (filter != null) {
      parts.add("a row filter (WHERE " + filter + ")");
    }
    throw new IllegalStateException(
        "publication "
            + publication
            + " sends the inserts of "
            + tables.schema()
            + "."
            + tables.eventsTable()
            + " only in part, with "
            + String.join(" and ", parts)
            + ": the relay needs every insert whole (an event without its payload cannot be"
            + " published, and an insert the filter leaves out never reaches it). Publish the"
            + " table whole: ALTER PUBLICATION "
            + DSL.name(publication)
            + " SET TABLE "
            + table);
  }

  /**
   * Makes sure the slot exists with the {@code pgoutput} plugin in this database. Slot names are
   * the cluster's, not a database's: the default name of another database's relay is the same.
   *
   * @return true if the slot was created now (so inserts before now are not in it)
   * @throws IllegalStateException if it cannot be created, is another plugin's, belongs to another
   *     database, or is lost
   */
  static boolean ensureSlot(DSLContext dsl, String slot, boolean create) {
    Record existing =
        dsl.select(PLUGIN, DATABASE, WAL_STATUS, DSL.currentCatalog())
            .from(SLOTS)
            .where(SLOT_NAME.eq(slot))
            .fetchOne();
    String sql = createSlotSql(slot);
    if (existing == null) {
      if (!create) {
        throw new IllegalStateException(
            "replication slot " + slot + " does not exist and creating it is off: run " + sql);
      }
      try {
        // A function call with no model: jOOQ renders it through DSL.function.
        dsl.select(
                DSL.function(
                    "pg_create_logical_replication_slot",
                    Object.class,
                    DSL.val(slot),
                    DSL.val("pgoutput")))
            .fetch();
        log.info("created replication slot {} (pgoutput)", slot);
        return true;
      } catch (DataAccessException e) {
        throw new IllegalStateException(
            "cannot create replication slot "
                + slot
                + " ("
                + e.sqlState()
                + ": "
                + e.getMessage()
                + "). It needs a role with REPLICATION (or superuser), wal_level=logical and a free"
                + " max_replication_slots entry, and waits for transactions open at the time: "
                + sql,
            e);
      }
    }
    @Nullable String plugin = existing.get(0, String.class);
    if (!"pgoutput".equals(plugin)) {
      throw new IllegalStateException(
          "replication slot "
              + slot
              + (plugin == null ? " is a physical slot" : " uses plugin " + plugin)
              + ", not pgoutput: drop it (SELECT pg_drop_replication_slot('"
              + slot
              + "')) or name another slot");
    }
    String database = existing.get(1, String.class);
    String here = existing.get(3, String.class);
    if (!here.equals(database)) {
      throw new WalSettingsException(
          words ->
              "replication slot "
                  + slot
                  + " belongs to database "
                  + database
                  + ", not "
                  + here
                  + ": slot names are shared by every database of the cluster, so another"
                  + " database's relay (or another reader) has it. Give this relay a slot of its"
                  + " own: set "
                  + words.name(WalOptions.SLOT_NAME)
                  + " (and "
                  + words.name(WalOptions.PUBLICATION_NAME)
                  + ")");
    }
    @Nullable String walStatus = existing.get(2, String.class);
    if ("lost".equals(walStatus)) {
      throw new IllegalStateException(
          "replication slot "
              + slot
              + " is lost (max_slot_wal_keep_size removed WAL it needed): drop it (SELECT"
              + " pg_drop_replication_slot('"
              + slot
              + "')); the relay creates it anew and the polling relay publishes what it missed");
    }
    return false;
  }
}
