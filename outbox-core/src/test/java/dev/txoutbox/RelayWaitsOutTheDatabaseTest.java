package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A failure of the database is not a failure of a row: a statement timeout or a cancel while the
 * relay reads its batch, or a database that refuses connections for a while, makes no dead letter,
 * is logged as one outage, and the events are published once the database serves again.
 */
class RelayWaitsOutTheDatabaseTest {

  private static final int HEALTHY = 20;

  private static TestDatabase db;
  private static DSLContext mapped;
  private OutboxRelay relay;
  @RegisterExtension final RelayLog logs = new RelayLog();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void database() {
    db = TestDatabase.create("waits_out", 6);
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
  }

  @AfterEach
  void stop() {
    if (relay != null) {
      relay.close(Duration.ofSeconds(5));
    }
  }

  @Test
  void aStatementTimeoutWhileReadingTheBatchMakesNoDeadLetter() throws Exception {
    insertEvents();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestDatabase.jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(2);
    config.setConnectionInitSql("SET statement_timeout = 200");
    try (HikariDataSource timingOut = new HikariDataSource(config);
        Connection blocker = blockReadingTheToastedPayload()) {
      RecordingPublisher publisher = new RecordingPublisher();
      startRelay(timingOut, publisher);

      await().atMost(Duration.ofSeconds(60)).until(() -> failures.size() >= 3 || deadLetters() > 0);

      assertThat(deadLetters()).isZero();
      assertThat(failures).allMatch(f -> "57014".equals(sqlState(f)));
      assertThat(publisher.attempted()).isEmpty();
      blocker.rollback();

      await().atMost(Duration.ofSeconds(60)).until(() -> pending() == 0);
      assertThat(publisher.publishCounts()).hasSize(HEALTHY + 1);
      assertThat(deadLetters()).isZero();
      assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0))).isZero();
      relay.close(Duration.ofSeconds(5)); // before its pool closes
    }
  }

  @Test
  void aCancelOfTheRelaysBackendWhileItReadsMakesNoDeadLetter() throws Exception {
    insertEvents();
    try (Connection blocker = blockReadingTheToastedPayload()) {
      int blockerPid = pid(blocker);
      RecordingPublisher publisher = new RecordingPublisher();
      startRelay(db.dataSource(), publisher);

      // Cancel the relay's statement twice: the claim, then whatever it waits in next.
      OffsetDateTime since = Instant.EPOCH.atOffset(ZoneOffset.UTC);
      for (int cancel = 1; cancel <= 2; cancel++) {
        Record2<Integer, OffsetDateTime> waiting = awaitStatementBlockedBy(blockerPid, since);
        db.execute("SELECT pg_cancel_backend(" + waiting.value1() + ")");
        since = waiting.value2();
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> failures.size() >= 2 || deadLetters() > 0);

      assertThat(deadLetters()).isZero();
      assertThat(failures).allMatch(f -> "57014".equals(sqlState(f)));
      blocker.rollback();

      await().atMost(Duration.ofSeconds(60)).until(() -> pending() == 0);
      assertThat(publisher.publishCounts()).hasSize(HEALTHY + 1);
      assertThat(deadLetters()).isZero();
    }
  }

  @Test
  void aDatabaseOutageIsLoggedOnceAsItStartsAndOnceAsItEnds() throws Exception {
    AtomicBoolean down = new AtomicBoolean();
    RecordingPublisher publisher = new RecordingPublisher();
    relay =
        OutboxRelay.builder()
            .dataSource(refusingWhile(down))
            .schema(db.schema())
            .publisher(publisher)
            .config(RelayConfig.builder().workers(2).build())
            .listener(failedCycles())
            .build();
    relay.start();
    insertEvents();
    await().atMost(Duration.ofSeconds(30)).until(() -> pending() == 0);

    down.set(true);
    await().atMost(Duration.ofSeconds(60)).until(() -> failures.size() >= 6);
    insertEvents();
    down.set(false);
    await().atMost(Duration.ofSeconds(60)).until(() -> pending() == 0);

    assertThat(publisher.publishCounts()).hasSize(2 * (HEALTHY + 1));
    List<ILoggingEvent> warnings =
        logs.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).toList();
    assertThat(warnings).noneMatch(e -> e.getThrowableProxy() != null);
    assertThat(warnings)
        .filteredOn(e -> e.getFormattedMessage().contains("database unavailable"))
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage()).contains("connection refused"));
    // At most one summary per 30 s: the outage is far shorter than a summary's interval.
    assertThat(warnings).hasSize(1);
    assertThat(logs.events())
        .filteredOn(e -> e.getLevel() == Level.INFO)
        .filteredOn(e -> e.getFormattedMessage().contains("database available again after"))
        .singleElement()
        .satisfies(
            e -> assertThat(e.getFormattedMessage()).containsPattern("\\(\\d+ failed cycles\\)"));
  }

  /** {@value #HEALTHY} small events and one whose payload is stored out of line (TOAST). */
  private void insertEvents() {
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', 'o' || g, 'order.created',"
            + " jsonb_build_object('n', g) FROM generate_series(1, "
            + HEALTHY
            + ") g");
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', 'big', 'order.created',"
            + " jsonb_build_object('blob', string_agg(md5(random()::text), ''))"
            + " FROM generate_series(1, 3000)");
  }

  /**
   * A transaction that holds the index of the events table's TOAST table exclusively (REINDEX), so
   * that reading the stored-out-of-line payload waits, while ids and small payloads read as usual.
   */
  private Connection blockReadingTheToastedPayload() throws SQLException {
    Connection c = DriverManager.getConnection(TestDatabase.jdbcUrl(), "postgres", "");
    c.setAutoCommit(false);
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT i.indexrelid::regclass::text FROM pg_class t JOIN pg_index i"
                    + " ON i.indrelid = t.reltoastrelid WHERE t.oid = '"
                    + db.schema()
                    + ".outbox_events'::regclass")) {
      rs.next();
      String toastIndex = rs.getString(1);
      s.execute("REINDEX INDEX " + toastIndex);
    }
    return c;
  }

  private void startRelay(DataSource dataSource, RecordingPublisher publisher) {
    relay =
        OutboxRelay.builder()
            .dataSource(dataSource)
            .schema(db.schema())
            .publisher(publisher)
            .config(RelayConfig.builder().batchSize(100).workers(1).build())
            .listener(failedCycles())
            .build();
    relay.start();
  }

  private RelayListener failedCycles() {
    return new RelayListener() {
      @Override
      public void cycleFailed(Throwable error) {
        failures.add(error);
      }
    };
  }

  /** A pooled data source that refuses connections while {@code down}, as a stopped server does. */
  private static DataSource refusingWhile(AtomicBoolean down) {
    DataSource pool = db.dataSource();
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection") && down.get()) {
                throw new SQLException(
                    "Connection to 127.0.0.1:5432 refused: connection refused", "08001");
              }
              try {
                return method.invoke(pool, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static int pid(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * The backend and the start of its statement that waits for {@code blockerPid}'s lock, a
   * statement started after {@code since}: the relay's, reading the payload.
   */
  private static Record2<Integer, OffsetDateTime> awaitStatementBlockedBy(
      int blockerPid, OffsetDateTime since) {
    Field<Integer> pid = DSL.field(DSL.name("pid"), Integer.class);
    Field<OffsetDateTime> started = DSL.field(DSL.name("query_start"), OffsetDateTime.class);
    return await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                mapped
                    .select(pid, started)
                    .from(DSL.table(DSL.name("pg_catalog", "pg_stat_activity")))
                    .where(
                        DSL.val(blockerPid)
                            .eq(DSL.any(DSL.field("pg_blocking_pids(pid)", Integer[].class))))
                    .and(started.gt(since))
                    .fetchOptional()
                    .orElse(null),
            r -> r != null);
  }

  private static String sqlState(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e) {
        return e.getSQLState();
      }
    }
    return null;
  }

  private static int pending() {
    return mapped.fetchCount(
        OUTBOX_EVENTS,
        OUTBOX_EVENTS.PROCESSED_AT.isNull().and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull()));
  }

  private static int deadLetters() {
    return mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull());
  }
}
