package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.ExecuteContext;
import org.jooq.ExecuteListener;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;

/** {@link WalSlot} against a real server with {@code wal_level=logical}, started by the tests. */
class WalSlotTest {

  private static final DataSource DB = LogicalServer.dataSource();

  /** A fresh outbox with its relay's publication and slot, created as the relay creates them. */
  private static OutboxTables outboxWithSlot(String prefix) {
    OutboxTables tables = LogicalServer.freshOutbox(prefix);
    DSLContext dsl = LogicalServer.dsl(tables);
    String name = WalSlot.defaultName(tables);
    WalSetup.ensurePublication(dsl, name, tables, true);
    WalSetup.ensureSlot(dsl, name, true);
    return tables;
  }

  @Test
  void findsTheSlotWithItsPublicationAfterCreation() {
    OutboxTables tables = outboxWithSlot("fi_");
    String name = WalSlot.defaultName(tables);
    assertThat(name).isEqualTo("txoutbox_fi_" + tables.schema());

    WalSlot slot = WalSlot.find(DB, name, name).orElseThrow();

    assertThat(slot.name()).isEqualTo(name);
    assertThat(slot.type()).isEqualTo("logical");
    assertThat(slot.plugin()).hasValue("pgoutput");
    assertThat(slot.database()).hasValue("postgres");
    assertThat(slot.active()).isFalse();
    assertThat(slot.activePid()).isEmpty();
    assertThat(slot.confirmedFlushLsn()).get().asString().matches("[0-9A-F]+/[0-9A-F]+");
    assertThat(slot.restartLsn()).get().asString().matches("[0-9A-F]+/[0-9A-F]+");
    assertThat(slot.walStatus()).hasValue("reserved");
    assertThat(slot.safeWalSize()).isEmpty(); // max_slot_wal_keep_size = -1, the default
    assertThat(slot.lagBytes()).isPresent();
    WalSlot.Publication pub = slot.publication().orElseThrow();
    assertThat(pub.name()).isEqualTo(name);
    assertThat(pub.allTables()).isFalse();
    assertThat(pub.tables()).containsExactly(tables.schema() + ".fi_outbox_events");
    assertThat(pub.publishes()).containsExactly("insert");
    // Without a publication name, or with one that does not exist: the slot alone.
    assertThat(WalSlot.find(DB, name).orElseThrow().publication()).isEmpty();
    assertThat(WalSlot.find(DB, name, "no_such_pub").orElseThrow().publication()).isEmpty();
    assertThat(WalSlot.find(DB, "no_such_slot")).isEmpty();
  }

  @Test
  void lagBytesGrowWithInsertsWhileNobodyReads() {
    OutboxTables tables = outboxWithSlot("lg_");
    String name = WalSlot.defaultName(tables);
    long before = WalSlot.find(DB, name).orElseThrow().lagBytes().orElseThrow();

    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext dsl = LogicalServer.dsl(tables);
    for (int i = 0; i < 50; i++) {
      int n = i;
      dsl.transaction(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o", "e" + n, "{}")));
    }
    long after = WalSlot.find(DB, name).orElseThrow().lagBytes().orElseThrow();

    assertThat(after).isGreaterThan(before + 50 * 100); // each insert writes far more than 100 B
    assertThat(WalSetup.lagBytes(dsl, name)).isGreaterThanOrEqualTo(after);
  }

  @Test
  void dropsAnInactiveSlotAndSaysWhenItDoesNotExist() {
    OutboxTables tables = outboxWithSlot("dr_");
    String name = WalSlot.defaultName(tables);

    WalSlot.drop(DB, name);

    assertThat(WalSlot.find(DB, name)).isEmpty();
    assertThatThrownBy(() -> WalSlot.drop(DB, name))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("replication slot " + name + " does not exist");
    // The publication stays: the next relay reads through it again.
    assertThat(WalSetup.publication(LogicalServer.dsl(tables), name)).isNotNull();
  }

  @Test
  void refusesToDropASlotThatAReplicationConnectionReads() throws Exception {
    OutboxTables tables = outboxWithSlot("ac_");
    String name = WalSlot.defaultName(tables);
    Properties props = LogicalServer.credentials();
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    try (Connection replication = DriverManager.getConnection(LogicalServer.jdbcUrl(), props);
        PGReplicationStream stream =
            replication
                .unwrap(PGConnection.class)
                .getReplicationAPI()
                .replicationStream()
                .logical()
                .withSlotName(name)
                .withSlotOption("proto_version", "1")
                .withSlotOption("publication_names", name)
                .withStatusInterval(10, TimeUnit.SECONDS)
                .start()) {
      WalSlot active =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> WalSlot.find(DB, name).orElseThrow(), WalSlot::active);
      int pid = active.activePid().orElseThrow();

      assertThatThrownBy(() -> WalSlot.drop(DB, name))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("replication slot " + name + " is active: process " + pid)
          .hasMessageContaining("Stop that relay first")
          .hasMessageContaining("SELECT pg_terminate_backend(" + pid + ")")
          .hasMessageEndingWith("nothing dropped");
      assertThat(WalSlot.find(DB, name)).isPresent();
      assertThat(stream.isClosed()).isFalse();
    }
    // Once the reader is gone, the slot can be dropped.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> !WalSlot.find(DB, name).orElseThrow().active());
    WalSlot.drop(DB, name);
    assertThat(WalSlot.find(DB, name)).isEmpty();
  }

  @Test
  void refusesToDropASlotOfAnotherDatabase() throws Exception {
    String database = "other_" + LogicalServer.freshOutbox("od_").schema();
    String slot = "slot_of_" + database;
    LogicalServer.execute("CREATE DATABASE " + database);
    try {
      DataSource other = LogicalServer.server().dataSource(database);
      DSL.using(other, SQLDialect.POSTGRES).execute(WalSetup.createSlotSql(slot));
      try {
        assertThat(WalSlot.find(DB, slot).orElseThrow().database()).hasValue(database);

        assertThatThrownBy(() -> WalSlot.drop(DB, slot))
            .isInstanceOf(IllegalStateException.class)
            .hasMessage(
                "replication slot "
                    + slot
                    + " belongs to database "
                    + database
                    + ", not postgres: connect to that database to drop it");
        assertThat(WalSlot.find(DB, slot)).isPresent();
      } finally {
        WalSlot.drop(other, slot);
      }
      assertThat(WalSlot.find(DB, slot)).isEmpty();
    } finally {
      // A database with a slot cannot be dropped: the slot goes first, above.
      LogicalServer.execute("DROP DATABASE " + database);
    }
  }

  @Test
  void ensureSlotRefusesTheSameNamedSlotOfAnotherDatabaseOfTheCluster() {
    String database = "other_" + LogicalServer.freshOutbox("es_").schema();
    // The default slot name is the same in every database: another database's relay took it.
    String slot = "txoutbox_public";
    LogicalServer.execute("CREATE DATABASE " + database);
    try {
      DataSource other = LogicalServer.server().dataSource(database);
      DSL.using(other, SQLDialect.POSTGRES).execute(WalSetup.createSlotSql(slot));
      try {
        DSLContext here = DSL.using(DB, SQLDialect.POSTGRES);
        assertThatThrownBy(() -> WalSetup.ensureSlot(here, slot, true))
            .isInstanceOf(IllegalStateException.class)
            .hasMessageStartingWith(
                "replication slot txoutbox_public belongs to database "
                    + database
                    + ", not postgres: slot names are shared by every database of the cluster")
            .hasMessageEndingWith(
                "Give this relay a slot of its own: set slotName (and publicationName)")
            .isInstanceOfSatisfying(
                WalSettingsException.class,
                e ->
                    assertThat(e.message(WalOptionsTest.FLAGS))
                        .endsWith(
                            "Give this relay a slot of its own: set --slot (and --publication)"));
        // Refused before it streams: the other database's slot is as it was.
        assertThat(WalSlot.find(DB, slot).orElseThrow().database()).hasValue(database);
      } finally {
        WalSlot.drop(other, slot);
      }
    } finally {
      LogicalServer.execute("DROP DATABASE " + database);
    }
  }

  @Test
  void aLostSlotHasNoSafeWalSizeAndSaysLost() throws Exception {
    // A server of the test's own: the WAL limit it sets would invalidate every slot of the shared
    // one.
    try (var own = LogicalServer.ofItsOwn(Map.of("max_slot_wal_keep_size", "1MB"))) {
      DataSource db = own.dataSource();
      DSLContext dsl = DSL.using(db, SQLDialect.POSTGRES);
      dsl.execute(WalSetup.createSlotSql("lost_slot"));
      WalSlot reserved = WalSlot.find(db, "lost_slot").orElseThrow();
      assertThat(reserved.safeWalSize()).isPresent();

      // Catalog functions and DDL with no generated model: plain SQL. WAL past the limit, in new
      // segments, then a checkpoint that removes what the slot needed.
      dsl.execute("CREATE TABLE filler (x text)");
      for (int i = 0; i < 4; i++) {
        dsl.execute("INSERT INTO filler SELECT repeat('x', 1000) FROM generate_series(1, 2000)");
        dsl.execute("SELECT pg_switch_wal()");
      }
      dsl.execute("CHECKPOINT");

      WalSlot lost = WalSlot.find(db, "lost_slot").orElseThrow();
      assertThat(lost.walStatus()).hasValue("lost");
      assertThat(lost.safeWalSize()).isEmpty();
      assertThatThrownBy(() -> WalSetup.ensureSlot(dsl, "lost_slot", true))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageStartingWith("replication slot lost_slot is lost");
    }
  }

  @Test
  void refusesToDropAPhysicalSlot() {
    String slot = "walslottest_physical";
    // Catalog function with no generated model: plain SQL.
    LogicalServer.execute("SELECT pg_create_physical_replication_slot('" + slot + "', true)");
    try {
      WalSlot found = WalSlot.find(DB, slot).orElseThrow();
      assertThat(found.type()).isEqualTo("physical");
      assertThat(found.database()).isEmpty();
      assertThat(found.plugin()).isEmpty();

      assertThatThrownBy(() -> WalSlot.drop(DB, slot))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "replication slot "
                  + slot
                  + " is a physical slot (a standby's or a backup's), not a relay's: nothing"
                  + " dropped");
      assertThat(WalSlot.find(DB, slot)).isPresent();
    } finally {
      WalSetup.dropSlot(DSL.using(DB, SQLDialect.POSTGRES), slot);
    }
  }

  @Test
  void refusesToDropALogicalSlotOfAnotherPlugin() {
    String slot = "walslottest_test_decoding";
    // Catalog function with no generated model: plain SQL.
    LogicalServer.execute(
        "SELECT pg_create_logical_replication_slot('" + slot + "', 'test_decoding')");
    try {
      WalSlot found = WalSlot.find(DB, slot).orElseThrow();
      assertThat(found.type()).isEqualTo("logical");
      assertThat(found.plugin()).hasValue("test_decoding");
      assertThat(found.database()).hasValue("postgres");

      assertThatThrownBy(() -> WalSlot.drop(DB, slot))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "replication slot "
                  + slot
                  + " uses plugin test_decoding, not pgoutput: not a relay's; nothing dropped");
      assertThat(WalSlot.find(DB, slot)).isPresent();
    } finally {
      WalSetup.dropSlot(DSL.using(DB, SQLDialect.POSTGRES), slot);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "Upper",
        "a-b",
        "x'); select pg_drop_replication_slot('victim'); --",
        "a b",
        "slot\u0000",
        "\u00e9t\u00e9",
        "a234567890123456789012345678901234567890123456789012345678901234"
      })
  void hostileNamesAreRefusedBeforeAnySql(String name) {
    AtomicInteger statements = new AtomicInteger();
    DSLContext counting =
        DSL.using(
            new DefaultConfiguration()
                .set(DB)
                .set(SQLDialect.POSTGRES)
                .set(
                    new ExecuteListener() {
                      @Override
                      public void start(ExecuteContext ctx) {
                        statements.incrementAndGet();
                      }
                    }));

    for (Runnable call :
        List.<Runnable>of(
            () -> WalSlot.find(counting, name),
            () -> WalSlot.find(counting, "ok", name),
            () -> WalSlot.find(counting, name, "ok"),
            () -> WalSlot.drop(counting, name))) {
      assertThatThrownBy(call::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must be 1 to 63 characters of a-z, 0-9 and _ but was '")
          .hasMessageNotContaining("\u0000");
    }
    assertThat(statements).hasValue(0);
    // A name of 63 characters is a valid one.
    assertThat(WalSlot.find(counting, "a".repeat(63))).isEmpty();
    assertThat(statements).hasValue(1);
  }
}
