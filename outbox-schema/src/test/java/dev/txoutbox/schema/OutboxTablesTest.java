package dev.txoutbox.schema;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.testing.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.LoggerFactory;

/** Table prefixes: every name the migrations create follows one, and the model maps onto it. */
class OutboxTablesTest {

  private TestDatabase db;

  @BeforeEach
  void reserveSchema() {
    db = TestDatabase.createEmpty("tables", 4);
  }

  @AfterEach
  void drop() {
    db.close();
  }

  /** Catalogs are outside the generated model: plain SQL. */
  private DSLContext plain() {
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  /** Every relation (table, view, index, sequence) of the schema, by name. */
  private List<String> relations() {
    return relations(db.schema());
  }

  private List<String> relations(String schema) {
    return names(
        "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace"
            + " where n.nspname = ? order by 1",
        schema);
  }

  /**
   * The named constraints of {@code schema}; not PostgreSQL 18's NOT NULL constraints, which the
   * server names itself and shortens as needed.
   */
  private List<String> constraints(String schema) {
    return names(
        "select c.conname from pg_constraint c join pg_namespace n on n.oid = c.connamespace"
            + " where n.nspname = ? and c.contype <> 'n'",
        schema);
  }

  private List<String> functionsAndTriggers() {
    return functionsAndTriggers(db.schema());
  }

  private List<String> functionsAndTriggers(String schema) {
    List<String> names = new ArrayList<>();
    names.addAll(
        names(
            "select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace"
                + " where n.nspname = ?",
            schema));
    names.addAll(
        names(
            "select t.tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid"
                + " join pg_namespace n on n.oid = c.relnamespace"
                + " where n.nspname = ? and not t.tgisinternal",
            schema));
    return names;
  }

  /** The names a catalog query of {@code schema} returns. */
  private List<String> names(String sql, String schema) {
    return plain().resultQuery(sql, schema).fetch(0, String.class);
  }

  private static void migrateAll(TestDatabase db, OutboxTables tables) {
    OutboxSchema.migrate(db.dataSource(), tables);
    OutboxSchema.migrateNotifyTrigger(db.dataSource(), tables);
    OutboxSchema.migrateOrderingIndex(db.dataSource(), tables);
  }

  @Test
  void everyNameTheMigrationsCreateStartsWithThePrefix() {
    OutboxTables tables = OutboxTables.of(db.schema(), "bill_");
    migrateAll(db, tables);

    assertThat(relations())
        .isNotEmpty()
        .allSatisfy(name -> assertThat(name).startsWith("bill_"))
        .contains(
            "bill_outbox_events",
            "bill_outbox_events_pkey",
            "bill_outbox_events_ready_idx",
            "bill_outbox_events_waiting_idx",
            "bill_outbox_dead_letters",
            "bill_processed_events",
            "bill_outbox_relays",
            tables.relaysTable(),
            tables.historyTable(),
            tables.notifyHistoryTable(),
            tables.orderingHistoryTable(),
            tables.orderingIndex(),
            tables.orderingDeadLetterIndex())
        .doesNotContain(
            "bill_outbox_events_pending_idx", "bill_outbox_events_aggregate_pending_idx");
    assertThat(functionsAndTriggers())
        .containsExactlyInAnyOrder("bill_outbox_events_notify", "bill_outbox_events_notify");
    assertThat(tables.historyTable()).isEqualTo("bill_outbox_schema_history");
    assertThat(tables.orderingIndex()).isEqualTo("bill_outbox_events_pending_aggregate_idx");
  }

  @Test
  void twoPrefixesInOneSchemaAreTwoIndependentOutboxes() {
    OutboxTables a = OutboxTables.of(db.schema(), "a_");
    OutboxTables b = OutboxTables.of(db.schema(), "b_");
    assertThat(OutboxSchema.migrate(db.dataSource(), a)).isEqualTo(3);
    // The second outbox has a history of its own: its migrations all run.
    assertThat(OutboxSchema.migrate(db.dataSource(), b)).isEqualTo(3);
    assertThat(OutboxSchema.migrate(db.dataSource(), a)).isZero();
    assertThat(OutboxSchema.migrateNotifyTrigger(db.dataSource(), a)).isEqualTo(1);
    assertThat(OutboxSchema.migrateNotifyTrigger(db.dataSource(), b)).isEqualTo(1);
    assertThat(OutboxSchema.migrateOrderingIndex(db.dataSource(), b)).isEqualTo(2);

    DSLContext inA = DSL.using(db.dataSource(), SQLDialect.POSTGRES, a.settings(null));
    DSLContext inB = DSL.using(db.dataSource(), SQLDialect.POSTGRES, b.settings(null));
    insert(inA, "only-in-a");
    assertThat(inA.fetchCount(OUTBOX_EVENTS)).isEqualTo(1);
    assertThat(inB.fetchCount(OUTBOX_EVENTS)).isZero();
    assertThat(inA.render(OUTBOX_EVENTS)).isEqualTo("\"" + db.schema() + "\".\"a_outbox_events\"");
    assertThat(relations()).filteredOn(n -> n.startsWith("b_")).contains(b.orderingIndex());
    assertThat(relations()).doesNotContain(a.orderingIndex());
  }

  @Test
  void theNotifyTriggerSignalsThePrefixedChannelOnly() throws SQLException {
    OutboxTables a = OutboxTables.of(db.schema(), "a_");
    OutboxTables b = OutboxTables.of(db.schema(), "b_");
    migrateAll(db, a);
    migrateAll(db, b);
    assertThat(a.notifyChannel()).isEqualTo("txoutbox_a_" + db.schema());

    try (Connection listener = db.dataSource().getConnection();
        var s = listener.createStatement()) {
      // LISTEN is a utility command jOOQ does not model.
      s.execute("LISTEN \"" + a.notifyChannel() + "\"");
      s.execute("LISTEN \"" + b.notifyChannel() + "\"");
      s.execute("LISTEN \"" + OutboxTables.in(db.schema()).notifyChannel() + "\"");
      insert(DSL.using(db.dataSource(), SQLDialect.POSTGRES, b.settings(null)), "b");

      PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(10_000);
      assertThat(got).extracting(PGNotification::getName).containsExactly(b.notifyChannel());
    }
  }

  @Test
  void theLongestAcceptedPrefixMigratesWithoutTruncatingAnyNameAndNotifies() throws SQLException {
    String prefix = "p".repeat(OutboxTables.MAX_TABLE_PREFIX_LENGTH - 1) + "_";
    String schema =
        ("s" + UUID.randomUUID().toString().replace("-", ""))
            .substring(0, OutboxTables.MAX_PREFIX_AND_SCHEMA_LENGTH - prefix.length());
    OutboxTables tables = OutboxTables.of(schema, prefix);
    Logger flywayLogger = (Logger) LoggerFactory.getLogger("org.flywaydb");
    ListAppender<ILoggingEvent> flywayLog = new ListAppender<>();
    flywayLog.start();
    flywayLogger.addAppender(flywayLog);
    try {
      migrateAll(db, tables);
      try (Connection listener = db.dataSource().getConnection();
          var s = listener.createStatement()) {
        s.execute("LISTEN \"" + tables.notifyChannel() + "\"");
        insert(DSL.using(db.dataSource(), SQLDialect.POSTGRES, tables.settings(null)), "x");
        PGNotification[] got = listener.unwrap(PGConnection.class).getNotifications(10_000);
        assertThat(got).extracting(PGNotification::getName).containsExactly(tables.notifyChannel());
      }
      // Nothing was truncated: the server holds the very names we derive, and no other.
      List<String> created = new ArrayList<>(relations(schema));
      created.addAll(constraints(schema));
      created.addAll(functionsAndTriggers(schema));
      assertThat(created).allSatisfy(name -> assertThat(name).startsWith(prefix));
      Set<String> unprefixed =
          created.stream().map(name -> name.substring(prefix.length())).collect(toSet());
      assertThat(OutboxTables.DERIVED_NAMES).containsAll(unprefixed);
      assertThat(unprefixed)
          .containsAll(
              OutboxTables.DERIVED_NAMES.stream()
                  .filter(name -> !DROPPED_INDEXES.contains(name))
                  .toList());
      // PostgreSQL's notice for a name it shortens (42622), which Flyway logs.
      assertThat(flywayLog.list)
          .extracting(ILoggingEvent::getFormattedMessage)
          .noneMatch(line -> line.contains("42622") || line.contains("truncated"));
      assertThat(tables.notifyChannel()).hasSize(OutboxTables.MAX_IDENTIFIER_LENGTH);
      assertThat(tables.name(OutboxTables.LONGEST_SUFFIX))
          .hasSize(OutboxTables.MAX_IDENTIFIER_LENGTH);
    } finally {
      flywayLogger.detachAppender(flywayLog);
      db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
    assertThatThrownBy(() -> OutboxTables.of("billing", prefix + "p"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tablePrefix must be at most "
                + OutboxTables.MAX_TABLE_PREFIX_LENGTH
                + " characters, so that <tablePrefix>outbox_ordering_schema_history_s_idx fits"
                + " PostgreSQL's 63-byte identifiers, but has "
                + (prefix.length() + 1)
                + ": '"
                + prefix
                + "p'");
  }

  /** Indexes of version 1 that version 2 drops: the pending events', the ordered mode's. */
  private static final Set<String> DROPPED_INDEXES =
      Set.of("outbox_events_pending_idx", "outbox_events_aggregate_pending_idx");

  /** Every name a migration script puts the prefix placeholder before is a derived name. */
  @Test
  void everyNameTheScriptsPrefixIsADerivedName() throws Exception {
    Pattern prefixed = Pattern.compile("/\\*\\{table_prefix}\\*/([a-z0-9_]+)");
    Set<String> inScripts = new TreeSet<>();
    for (String location :
        List.of(
            OutboxSchema.LOCATION, OutboxSchema.NOTIFY_LOCATION, OutboxSchema.ORDERING_LOCATION)) {
      Path folder =
          Path.of(
              OutboxSchema.class
                  .getClassLoader()
                  .getResource(location.substring("classpath:".length()))
                  .toURI());
      try (Stream<Path> scripts = Files.list(folder)) {
        for (Path script : scripts.toList()) {
          Matcher m = prefixed.matcher(Files.readString(script));
          while (m.find()) {
            inScripts.add(m.group(1));
          }
        }
      }
    }
    assertThat(inScripts).containsAll(DROPPED_INDEXES).contains("outbox_events_notify");
    assertThat(OutboxTables.DERIVED_NAMES).containsAll(inScripts);
  }

  @Test
  void theLimitsAreThoseOfPostgresIdentifiers() {
    assertThat(OutboxTables.MAX_TABLE_PREFIX_LENGTH + OutboxTables.LONGEST_SUFFIX.length())
        .isEqualTo(OutboxTables.MAX_IDENTIFIER_LENGTH);
    assertThat(
            OutboxTables.MAX_PREFIX_AND_SCHEMA_LENGTH + OutboxTables.NOTIFY_CHANNEL_PREFIX.length())
        .isEqualTo(OutboxTables.MAX_IDENTIFIER_LENGTH);
  }

  @Test
  void rejectionsNameTheValuesAsTheCallerNamesThem() {
    assertThatThrownBy(() -> OutboxTables.of("Billing", "", "--schema", "--table-prefix"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--schema must be a lower-case identifier of 1 to 54 characters [a-z0-9_], not"
                + " starting with a digit, but was 'Billing'");
    assertThatThrownBy(() -> OutboxTables.of("billing", "p".repeat(29), "--schema", "--prefix"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--prefix must be at most 27 characters, so that <--prefix>")
        .hasMessageNotContaining("tablePrefix");
    assertThatThrownBy(
            () -> OutboxTables.of("s".repeat(40), "p".repeat(15), "--schema", "--prefix"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("--prefix and --schema together must be at most 54 characters")
        .hasMessageContaining("<--prefix><--schema>")
        .hasMessageNotContaining("tablePrefix");
    // The two-argument form keeps the builders' words.
    assertThat(OutboxTables.of("billing", "bill_", "--schema", "--prefix"))
        .isEqualTo(OutboxTables.of("billing", "bill_"));
  }

  @Test
  void rejectionsNameTheFieldAndTheLimit() {
    assertThatThrownBy(() -> OutboxTables.of("billing", "p".repeat(29)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix must be at most 27 characters")
        .hasMessageContaining("63-byte identifiers, but has 29");
    assertThatThrownBy(() -> OutboxTables.of("s".repeat(40), "p".repeat(15)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix and schema together must be at most 54 characters")
        .hasMessageContaining("but have 55");
    assertThatThrownBy(() -> OutboxTables.of("billing", "Bill_"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "tablePrefix must be empty or a lower-case identifier start of up to 27 characters"
                + " [a-z0-9_], not starting with a digit, but was 'Bill_'");
    assertThatThrownBy(() -> OutboxTables.of("billing", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("tablePrefix");
    assertThatThrownBy(() -> OutboxTables.of("User", "bill_"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("schema must be");
    // PostgreSQL takes a dollar sign and non-ASCII letters inside an unquoted name; we do not: the
    // SQL standard has no dollar, and limits in characters are limits in bytes only for ASCII.
    assertThatThrownBy(() -> OutboxTables.of("billing", "a$_"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OutboxTables.of("billing", "é_"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void withoutAPrefixTheNamesAreThoseOfEarlierVersions() {
    OutboxTables tables = OutboxTables.in("billing");
    assertThat(tables.eventsTable()).isEqualTo("outbox_events");
    assertThat(tables.historyTable()).isEqualTo(OutboxSchema.HISTORY_TABLE);
    assertThat(tables.orderingIndex()).isEqualTo(OutboxSchema.ORDERING_INDEX);
    assertThat(tables.notifyChannel()).isEqualTo(OutboxSchema.notifyChannel("billing"));
    assertThat(tables.renderMapping()).isEqualTo(OutboxSchema.renderMapping("billing"));
    assertThat(OutboxTables.defaults()).isEqualTo(OutboxTables.in("public"));
    assertThat(OutboxTables.of("billing", "bill_").withTablePrefix("")).isEqualTo(tables);
    assertThat(OutboxTables.of("billing", "bill_")).hasToString("billing.bill_*");
  }

  /**
   * Seeded random prefixes: our check accepts a prefix exactly when PostgreSQL takes every name
   * derived from it unquoted, as written (not folded to lower case, not truncated), and the NOTIFY
   * channel as an unquoted LISTEN and as {@code pg_notify}'s channel. The alphabet leaves out
   * {@code $} and non-ASCII letters, refused on purpose above.
   */
  @Test
  void acceptsExactlyThePrefixesThatPostgresTakesUnquotedAsWritten() {
    String alphabet = "abcxyz_019ABZ -.";
    Random random = new Random(16);
    String schema = "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
    db.execute("CREATE SCHEMA " + schema);
    int accepted = 0;
    int refused = 0;
    int tooLong = 0;
    // A connection of its own, not the pool's: the pool retires a connection after some of the
    // errors provoked here (0A000, a name with a dot).
    try (Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "")) {
      c.setAutoCommit(false);
      for (int i = 0; i < 400; i++) {
        // Half from the characters we take, so that lengths around the limit are reached too.
        String chars = random.nextBoolean() ? "abcxyz_019" : alphabet;
        int length = random.nextInt(4) == 0 ? 26 + random.nextInt(6) : random.nextInt(8);
        StringBuilder prefix = new StringBuilder();
        for (int j = 0; j < length; j++) {
          prefix.append(chars.charAt(random.nextInt(chars.length())));
        }
        String candidate = prefix.toString();
        boolean ours;
        try {
          OutboxTables.of(schema, candidate);
          ours = true;
        } catch (IllegalArgumentException e) {
          ours = false;
        }
        boolean server = serverTakes(c, schema, candidate);
        assertThat(ours).as("prefix '%s'", candidate).isEqualTo(server);
        if (candidate.matches("[a-z_][a-z0-9_]*")
            && candidate.length() > OutboxTables.MAX_TABLE_PREFIX_LENGTH) {
          tooLong++;
        }
        if (ours) {
          accepted++;
        } else {
          refused++;
        }
      }
      c.rollback();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } finally {
      db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
    assertThat(accepted).isGreaterThan(40);
    assertThat(refused).isGreaterThan(40);
    assertThat(tooLong).as("valid characters over the length limit").isGreaterThan(10);
  }

  /**
   * Creates the longest derived name unquoted, LISTENs on the channel unquoted (a name too long is
   * truncated there with a notice only) and notifies it (a channel too long fails there), all in a
   * savepoint rolled back.
   */
  private static boolean serverTakes(Connection c, String schema, String prefix)
      throws SQLException {
    String table = prefix + OutboxTables.LONGEST_SUFFIX;
    String channel = OutboxTables.NOTIFY_CHANNEL_PREFIX + prefix + schema;
    var savepoint = c.setSavepoint();
    try (var s = c.createStatement()) {
      // DDL and LISTEN on generated names: what is under test is the server's parser itself.
      s.execute("CREATE TABLE " + schema + "." + table + " ()");
      s.execute("LISTEN " + channel);
      DSL.using(c, SQLDialect.POSTGRES).resultQuery("select pg_notify(?, '')", channel).fetch();
      List<String> stored =
          DSL.using(c, SQLDialect.POSTGRES)
              .resultQuery(
                  "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace"
                      + " where n.nspname = ? and c.relname = ?",
                  schema,
                  table)
              .fetch(0, String.class);
      return stored.equals(List.of(table));
    } catch (SQLException | org.jooq.exception.DataAccessException refused) {
      return false;
    } finally {
      c.rollback(savepoint);
    }
  }

  private static void insert(DSLContext dsl, String aggregateId) {
    dsl.insertInto(OUTBOX_EVENTS)
        .set(OUTBOX_EVENTS.ID, UUID.randomUUID())
        .set(OUTBOX_EVENTS.AGGREGATE_TYPE, "order")
        .set(OUTBOX_EVENTS.AGGREGATE_ID, aggregateId)
        .set(OUTBOX_EVENTS.EVENT_TYPE, "order.created")
        .set(OUTBOX_EVENTS.PAYLOAD, JSONB.valueOf("{}"))
        .execute();
  }
}
