package dev.txoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.testing.TestDatabase;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A schema migrated by a snapshot from before the table prefix migrates again without repair. */
class EarlierChecksumsTest {

  private TestDatabase db;

  @BeforeEach
  void database() {
    db = TestDatabase.createEmpty("checksums", 2);
  }

  @AfterEach
  void drop() {
    db.close();
  }

  @Test
  void theCurrentChecksumsAreWhatFlywayRecordsForTodaysScripts() {
    OutboxSchema.migrate(db.dataSource(), db.schema());
    OutboxSchema.migrateNotifyTrigger(db.dataSource(), db.schema());
    OutboxSchema.migrateOrderingIndex(db.dataSource(), db.schema());

    for (EarlierChecksums.Known known : EarlierChecksums.KNOWN) {
      assertThat(checksum(history(known.location()), known.version()))
          .as(known.location() + " V" + known.version())
          .isEqualTo(known.current());
    }
  }

  /**
   * The schema as a snapshot before the table prefix left it: its own scripts (kept as they were in
   * src/test/resources/db/earlier-snapshot), run by Flyway with the same history tables.
   */
  @Test
  void aSchemaMigratedByTheScriptsBeforeThePrefixMigratesAgainWithoutRepair() {
    earlierSnapshot("outbox", OutboxSchema.HISTORY_TABLE);
    earlierSnapshot("outbox-notify", OutboxSchema.NOTIFY_HISTORY_TABLE);
    earlierSnapshot("outbox-ordering", OutboxSchema.ORDERING_HISTORY_TABLE);
    for (EarlierChecksums.Known known : EarlierChecksums.KNOWN) {
      assertThat(checksum(history(known.location()), known.version()))
          .as("what the earlier script recorded: " + known.location() + " V" + known.version())
          .isEqualTo(known.earlier());
    }

    // Only version 3 (relay heartbeats), newer than the snapshot, runs; nothing is repaired.
    assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isEqualTo(1);
    assertThat(OutboxSchema.migrateNotifyTrigger(db.dataSource(), db.schema())).isZero();
    assertThat(OutboxSchema.migrateOrderingIndex(db.dataSource(), db.schema())).isZero();
    for (EarlierChecksums.Known known : EarlierChecksums.KNOWN) {
      assertThat(checksum(history(known.location()), known.version())).isEqualTo(known.current());
    }
  }

  @Test
  void anyOtherChecksumStillFailsValidation() {
    OutboxSchema.migrate(db.dataSource(), db.schema());
    setChecksum(OutboxSchema.HISTORY_TABLE, "1", 12345);

    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), db.schema()))
        .isInstanceOf(FlywayException.class)
        .hasMessageContaining("checksum mismatch");
    assertThat(checksum(OutboxSchema.HISTORY_TABLE, "1")).isEqualTo(12345);
  }

  @Test
  void aPrefixedOutboxIsNeverRewritten() {
    OutboxTables prefixed = OutboxTables.of(db.schema(), "bill_");
    OutboxSchema.migrate(db.dataSource(), prefixed);
    EarlierChecksums.Known v1 = EarlierChecksums.KNOWN.get(0);
    setChecksum(prefixed.historyTable(), v1.version(), v1.earlier());

    assertThat(
            EarlierChecksums.realign(
                db.dataSource(), prefixed, OutboxSchema.LOCATION, prefixed.historyTable()))
        .isZero();
    assertThat(checksum(prefixed.historyTable(), v1.version())).isEqualTo(v1.earlier());
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), prefixed))
        .isInstanceOf(FlywayException.class)
        .hasMessageContaining("checksum mismatch");
  }

  private void earlierSnapshot(String location, String historyTable) {
    Flyway.configure()
        .dataSource(db.dataSource())
        .locations("classpath:db/earlier-snapshot/" + location)
        .table(historyTable)
        .schemas(db.schema())
        .defaultSchema(db.schema())
        .createSchemas(true)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  private static String history(String location) {
    return List.of(
            OutboxSchema.HISTORY_TABLE,
            OutboxSchema.NOTIFY_HISTORY_TABLE,
            OutboxSchema.ORDERING_HISTORY_TABLE)
        .get(
            List.of(
                    OutboxSchema.LOCATION,
                    OutboxSchema.NOTIFY_LOCATION,
                    OutboxSchema.ORDERING_LOCATION)
                .indexOf(location));
  }

  private int checksum(String historyTable, String version) {
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .resultQuery(
            "SELECT checksum FROM "
                + db.schema()
                + "."
                + historyTable
                + " WHERE version = '"
                + version
                + "'")
        .fetchSingle(0, Integer.class);
  }

  private void setChecksum(String historyTable, String version, int checksum) {
    db.execute(
        "UPDATE "
            + db.schema()
            + "."
            + historyTable
            + " SET checksum = "
            + checksum
            + " WHERE version = '"
            + version
            + "'");
  }
}
