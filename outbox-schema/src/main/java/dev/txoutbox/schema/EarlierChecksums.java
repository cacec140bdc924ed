package dev.txoutbox.schema;

import java.util.List;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The checksums that snapshots before the table prefix recorded for the outbox's migrations. The
 * prefix placeholder changed the scripts' text but not what they do without a prefix, so a history
 * row that holds exactly such an earlier checksum is brought up to the current one before Flyway
 * validates; any other mismatch still fails validation as Flyway reports it. Stateless.
 */
final class EarlierChecksums {

  /** One migration: where it lives, its version, the checksum it had and the one it has now. */
  record Known(String location, String version, int earlier, int current) {}

  /**
   * Every migration that existed before the prefix. {@code current} is what Flyway records for
   * today's script; {@code EarlierChecksumsTest} fails when a script changes without this list.
   */
  static final List<Known> KNOWN =
      List.of(
          new Known(OutboxSchema.LOCATION, "1", -1172332323, 1289006993),
          new Known(OutboxSchema.LOCATION, "2", -1136582273, 1573756478),
          new Known(OutboxSchema.NOTIFY_LOCATION, "1", -1697730209, -1322077576),
          new Known(OutboxSchema.ORDERING_LOCATION, "1", -1872328014, -1395532702),
          new Known(OutboxSchema.ORDERING_LOCATION, "2", 1097496909, -513674696));

  private EarlierChecksums() {}

  /**
   * Rewrites the earlier checksums of {@code location}'s migrations in the history table to the
   * current ones. Only unprefixed outboxes can hold them: snapshots before the prefix had none.
   *
   * @return the number of history rows rewritten
   */
  static int realign(
      DataSource dataSource, OutboxTables tables, String location, String historyTable) {
    if (!tables.tablePrefix().isEmpty()) {
      return 0;
    }
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    Name history = DSL.name(tables.schema(), historyTable);
    // Flyway's history table is not part of the generated model, and jOOQ has no to_regclass.
    Field<String> exists =
        DSL.function("to_regclass", String.class, DSL.val(dsl.render(DSL.table(history))));
    if (dsl.fetchValue(exists) == null) {
      return 0;
    }
    Table<?> table = DSL.table(history);
    Field<String> version = DSL.field(DSL.name("version"), String.class);
    Field<Integer> checksum = DSL.field(DSL.name("checksum"), Integer.class);
    int rewritten = 0;
    for (Known known : KNOWN) {
      if (known.location().equals(location)) {
        rewritten +=
            dsl.update(table)
                .set(checksum, known.current())
                .where(version.eq(known.version()))
                .and(checksum.eq(known.earlier()))
                .execute();
      }
    }
    return rewritten;
  }
}
