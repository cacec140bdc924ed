package dev.txoutbox.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.schema.model.OutboxModel;
import dev.txoutbox.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OutboxSchemaTest {

  private static TestDatabase db;

  @BeforeAll
  static void migrate() {
    db = TestDatabase.create("schema_test");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void liveSchemaMatchesGeneratedModel() throws SQLException {
    Map<String, List<String>> live = liveColumns(db.schema());
    // The Flyway history table is Flyway's, not part of the generated model.
    assertThat(live.remove(OutboxSchema.HISTORY_TABLE)).isNotNull();
    Map<String, List<String>> generated = new TreeMap<>();
    for (Table<?> table : OutboxModel.OUTBOX_MODEL.getTables()) {
      List<String> columns = new ArrayList<>();
      for (Field<?> f : table.fields()) {
        columns.add(
            f.getName()
                + " "
                + normalise(f.getDataType().getTypeName())
                + (f.getDataType().nullable() ? " null" : " not null"));
      }
      generated.put(table.getName(), columns);
    }
    assertThat(generated).isNotEmpty();
    // Views report every column as nullable in both models, so the comparison holds for them too.
    assertThat(live).isEqualTo(generated);
  }

  @Test
  void primaryKeysCarryTheNamesOfTheDdl() throws SQLException {
    assertThat(OutboxModel.OUTBOX_MODEL.getTable("outbox_events").getPrimaryKey().getName())
        .isEqualTo("outbox_events_pkey");
    try (Connection c = db.dataSource().getConnection();
        ResultSet rs = c.getMetaData().getPrimaryKeys(null, db.schema(), "outbox_events")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString("PK_NAME")).isEqualTo("outbox_events_pkey");
    }
  }

  @Test
  void thePendingRowsAreSplitBetweenTheReadyAndTheWaitingIndex() {
    assertThat(indexDefinition("outbox_events_ready_idx"))
        .contains("(seq)")
        .contains("processed_at IS NULL")
        .contains("dead_lettered_at IS NULL")
        .contains("retry_after IS NULL");
    assertThat(indexDefinition("outbox_events_waiting_idx"))
        .contains("(retry_after)")
        .contains("processed_at IS NULL")
        .contains("dead_lettered_at IS NULL")
        .contains("retry_after IS NOT NULL");
    assertThat(indexDefinition("outbox_events_pending_idx")).as("version 1's index").isNull();
  }

  private String indexDefinition(String index) {
    DSLContext dsl = DSL.using(db.dataSource(), org.jooq.SQLDialect.POSTGRES);
    return dsl.select(DSL.field("indexdef", String.class))
        .from(DSL.table(DSL.name("pg_indexes")))
        .where(DSL.field("schemaname").eq(db.schema()))
        .and(DSL.field("indexname").eq(index))
        .fetchOne(DSL.field("indexdef", String.class));
  }

  @Test
  void migrateIsIdempotentAndKeepsItsOwnHistoryTable() throws SQLException {
    assertThat(OutboxSchema.migrate(db.dataSource(), db.schema())).isZero();
    assertThat(liveColumns(db.schema())).containsKey(OutboxSchema.HISTORY_TABLE);
  }

  @Test
  void migratesIntoASchemaThatAlreadyHoldsApplicationTables() throws SQLException {
    try (TestDatabase other = TestDatabase.createEmpty("schema_shared", 2)) {
      other.execute("CREATE SCHEMA " + other.schema());
      other.execute("CREATE TABLE " + other.schema() + ".orders (id bigint primary key)");
      assertThat(OutboxSchema.migrate(other.dataSource(), other.schema())).isEqualTo(3);
      assertThat(liveColumns(other.schema())).containsKeys("orders", "outbox_events");
    }
  }

  @Test
  void notifyTriggerIsOptInAndSignalsTheSchemaChannel() throws SQLException {
    try (TestDatabase other = TestDatabase.create("schema_notify", 2)) {
      assertThat(triggers(other)).isEmpty();
      assertThat(OutboxSchema.migrateNotifyTrigger(other.dataSource(), other.schema()))
          .isEqualTo(1);
      assertThat(triggers(other)).containsExactly("outbox_events_notify");
      assertThat(OutboxSchema.notifyChannel(other.schema()))
          .isEqualTo("txoutbox_" + other.schema());
    }
  }

  @Test
  void orderingIndexesAreOptInAndReplaceTheFirstVersion() {
    try (TestDatabase other = TestDatabase.create("schema_ordering", 2)) {
      DSLContext dsl = DSL.using(other.dataSource(), org.jooq.SQLDialect.POSTGRES);
      // pg_indexes is a catalog view, not part of the generated model.
      var indexes =
          dsl.select(DSL.field("indexname", String.class), DSL.field("indexdef", String.class))
              .from(DSL.table(DSL.name("pg_indexes")))
              .where(DSL.field("schemaname").eq(other.schema()))
              .and(DSL.field("indexname").like("%aggregate%"));
      assertThat(indexes.fetch()).isEmpty();

      assertThat(OutboxSchema.migrateOrderingIndex(other.dataSource(), other.schema()))
          .isEqualTo(2);

      Map<String, String> byName = indexes.fetchMap(Record2::value1, Record2::value2);
      assertThat(byName)
          .containsOnlyKeys(OutboxSchema.ORDERING_INDEX, OutboxSchema.ORDERING_DEAD_LETTER_INDEX);
      assertThat(byName.get(OutboxSchema.ORDERING_INDEX))
          .contains("(aggregate_type, aggregate_id, seq)")
          .contains("(processed_at IS NULL) AND (dead_lettered_at IS NULL)");
      assertThat(byName.get(OutboxSchema.ORDERING_DEAD_LETTER_INDEX))
          .contains("(aggregate_type, aggregate_id, seq)")
          .contains("dead_lettered_at IS NOT NULL");
      assertThat(OutboxSchema.migrateOrderingIndex(other.dataSource(), other.schema())).isZero();
    }
  }

  @Test
  void rejectsSchemaNamesThatAreNotPlainIdentifiers() {
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), "Billing"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema must be a lower-case identifier of 1 to 54 characters")
        .hasMessageContaining("'Billing'");
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), "x; drop table y"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OutboxSchema.renderMapping(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OutboxSchema.renderMapping(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("schema");
  }

  @Test
  void refusesSchemaNamesWhoseNotifyChannelWouldExceedPostgresIdentifiers() {
    String longest = "s".repeat(OutboxSchema.MAX_SCHEMA_NAME_LENGTH);
    assertThat(OutboxSchema.notifyChannel(longest).getBytes(StandardCharsets.UTF_8)).hasSize(63);
    assertThatThrownBy(() -> OutboxSchema.notifyChannel(longest + "s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema must be at most 54 characters")
        .hasMessageContaining("63-byte")
        .hasMessageContaining("has 55");
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), "a".repeat(63)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 54");
  }

  @Test
  void refusesSystemSchemasAndReservedWords() {
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), "pg_outbox"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema must not start with pg_");
    assertThatThrownBy(() -> OutboxSchema.migrate(db.dataSource(), "information_schema"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("schema must not be information_schema");
    for (String word : List.of("user", "select", "order", "table", "verbose")) {
      assertThatThrownBy(() -> OutboxSchema.renderMapping(word))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("reserved SQL key word")
          .hasMessageContaining("'" + word + "'");
    }
    // Unreserved key words and names merely containing pg_ are fine.
    assertThat(OutboxSchema.requireSchemaName("public")).isEqualTo("public");
    assertThat(OutboxSchema.requireSchemaName("events")).isEqualTo("events");
    assertThat(OutboxSchema.requireSchemaName("app_pg_x")).isEqualTo("app_pg_x");
  }

  @Test
  void reservedWordsAreExactlyThoseTheServerRefusesUnquoted() {
    // Every name the check lets through works unquoted; every reserved word it refuses does not.
    List<String> serverReserved =
        DSL.using(db.dataSource(), org.jooq.SQLDialect.POSTGRES)
            .resultQuery("select word from pg_get_keywords() where catcode in ('R', 'T')")
            .fetch(0, String.class);
    assertThat(serverReserved).isNotEmpty();
    for (String word : serverReserved) {
      assertThatThrownBy(() -> OutboxSchema.requireSchemaName(word))
          .as(word)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void migratesIntoTheLongestAcceptedSchemaNameWithTheNotifyTrigger() throws SQLException {
    String schema = ("long_" + UUID.randomUUID().toString().replace("-", "")).substring(0, 37);
    schema = schema + "_".repeat(OutboxSchema.MAX_SCHEMA_NAME_LENGTH - schema.length());
    try {
      OutboxSchema.migrate(db.dataSource(), schema);
      OutboxSchema.migrateNotifyTrigger(db.dataSource(), schema);
      try (Connection c = db.dataSource().getConnection();
          var s = c.createStatement()) {
        // The trigger's pg_notify('txoutbox_' || schema) must not fail for the longest name.
        s.execute(
            "insert into "
                + schema
                + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
                + " values (gen_random_uuid(), 'a', '1', 't', '{}')");
      }
    } finally {
      db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
  }

  private static List<String> triggers(TestDatabase target) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = target.dataSource().getConnection();
        var ps =
            c.prepareStatement(
                "select trigger_name from information_schema.triggers where event_object_schema = ?"
                    + " group by trigger_name")) {
      ps.setString(1, target.schema());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }

  private static Map<String, List<String>> liveColumns(String schema) throws SQLException {
    Map<String, List<String>> tables = new TreeMap<>();
    try (Connection c = db.dataSource().getConnection();
        ResultSet rs = c.getMetaData().getColumns(null, schema, "%", "%")) {
      while (rs.next()) {
        String table = rs.getString("TABLE_NAME");
        tables
            .computeIfAbsent(table, t -> new ArrayList<>())
            .add(
                rs.getString("COLUMN_NAME")
                    + " "
                    + normalise(rs.getString("TYPE_NAME"))
                    + ("NO".equals(rs.getString("IS_NULLABLE")) ? " not null" : " null"));
      }
    }
    return tables;
  }

  /** Live and generated type names differ in spelling only; map both to PostgreSQL's own. */
  private static String normalise(String type) {
    String t = type.toLowerCase(java.util.Locale.ROOT);
    return switch (t) {
      case "int8", "bigint", "bigserial" -> "bigint";
      case "int4", "integer", "serial" -> "integer";
      case "varchar", "character varying" -> "varchar";
      case "timestamptz", "timestamp with time zone" -> "timestamptz";
      case "text", "clob" -> "text";
      default -> t;
    };
  }
}
