package dev.txoutbox.wal;

import dev.txoutbox.schema.OutboxTables;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Field;
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

  /**
   * Bytes of WAL between the server's current insert position and the slot's confirmed one: what
   * the slot holds back, or -1 if the slot does not exist.
   */
  static long lagBytes(DSLContext dsl, String slot) {
    // Catalog functions: no generated model for them.
    Field<Long> lag =
        DSL.field(
            "pg_wal_lsn_diff(pg_current_wal_insert_lsn(), {0})",
            Long.class, DSL.field(DSL.name("confirmed_flush_lsn")));
    Long bytes =
        dsl.select(lag)
            .from(SLOTS)
            .where(DSL.field(DSL.name("slot_name"), String.class).eq(slot))
            .fetchOne(lag);
    return bytes == null ? -1 : bytes;
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
    Field<String> name = DSL.field(DSL.name("pubname"), String.class);
    Record pub =
        dsl.select(
                DSL.field(DSL.name("pubupdate"), Boolean.class),
                DSL.field(DSL.name("pubdelete"), Boolean.class),
                DSL.field(DSL.name("puballtables"), Boolean.class))
            .from(PUBLICATION)
            .where(name.eq(publication))
            .fetchOne();
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
    if (Boolean.TRUE.equals(pub.get(0)) || Boolean.TRUE.equals(pub.get(1))) {
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
            .where(name.eq(publication))
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
  }

  /**
   * Makes sure the slot exists with the {@code pgoutput} plugin in this database.
   *
   * @return true if the slot was created now (so inserts before now are not in it)
   * @throws IllegalStateException if it cannot be created, is another plugin's, or is lost
   */
  static boolean ensureSlot(DSLContext dsl, String slot, boolean create) {
    Field<String> name = DSL.field(DSL.name("slot_name"), String.class);
    Record existing =
        dsl.select(
                DSL.field(DSL.name("plugin"), String.class),
                DSL.field(DSL.name("database"), String.class),
                DSL.field(DSL.name("wal_status"), String.class))
            .from(SLOTS)
            .where(name.eq(slot))
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
    String plugin = existing.get(0, String.class);
    if (!"pgoutput".equals(plugin)) {
      throw new IllegalStateException(
          "replication slot "
              + slot
              + " uses plugin "
              + plugin
              + ", not pgoutput: drop it (SELECT pg_drop_replication_slot('"
              + slot
              + "')) or name another slot");
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
