package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code vacuumInterval}: the relay runs a plain VACUUM of its events table at that interval, and a
 * role that does not own the table, which PostgreSQL skips with a warning, gets one WARN and no
 * more runs. The test server may run without autovacuum, so the table's manual vacuum count moves
 * only by the relay's runs.
 */
class RelayVacuumTest {

  private static TestDatabase db;

  @RegisterExtension final RelayLog log = new RelayLog();

  private OutboxRelay relay;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("vacuum");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @AfterEach
  void close() {
    if (relay != null) {
      relay.close(Duration.ofSeconds(5));
    }
  }

  @Test
  void theRelayVacuumsItsEventsTableAtTheInterval() {
    long before = vacuumCount();
    RecordingPublisher publisher = new RecordingPublisher();
    relay =
        TestSupport.relayBuilder(db, publisher)
            .config(
                RelayConfig.builder()
                    .name("vacuuming")
                    .completionMode(CompletionMode.DELETE)
                    .vacuumInterval(Duration.ofMillis(200))
                    .build())
            .build();
    record(50);

    relay.start();

    await().atMost(Duration.ofSeconds(30)).until(() -> publisher.published().size() == 50);
    await().atMost(Duration.ofSeconds(30)).until(() -> vacuumCount() >= before + 3);
    assertThat(warnings()).isEmpty();
    assertThat(Thread.getAllStackTraces().keySet())
        .extracting(Thread::getName)
        .contains("outbox-relay-vacuuming-vacuum");
  }

  @Test
  void aRoleThatDoesNotOwnTheTableIsToldOnceAndStops() throws Exception {
    String role = "txoutbox_vacuum_" + UUID.randomUUID().toString().substring(0, 8);
    db.execute("CREATE ROLE " + role + " LOGIN");
    try {
      db.execute("GRANT USAGE ON SCHEMA " + db.schema() + " TO " + role);
      db.execute("GRANT ALL ON ALL TABLES IN SCHEMA " + db.schema() + " TO " + role);
      db.execute("GRANT ALL ON ALL SEQUENCES IN SCHEMA " + db.schema() + " TO " + role);
      long before = vacuumCount();
      try (HikariDataSource asRole = pool(role)) {
        relay =
            OutboxRelay.builder()
                .dataSource(asRole)
                .schema(db.schema())
                .publisher(new RecordingPublisher())
                .config(
                    RelayConfig.builder()
                        .name("not-owner")
                        .vacuumInterval(Duration.ofMillis(100))
                        .build())
                .build();

        relay.start();

        await().atMost(Duration.ofSeconds(30)).until(() -> !warnings().isEmpty());
        Thread.sleep(500); // five more intervals: no second warning, no run
        assertThat(warnings())
            .singleElement()
            .extracting(ILoggingEvent::getFormattedMessage)
            .asString()
            .startsWith("relay not-owner: PostgreSQL skipped VACUUM of ")
            .contains("outbox_events", "vacuumInterval has no effect", "table's owner");
        assertThat(vacuumCount()).isEqualTo(before);
        relay.close(Duration.ofSeconds(5));
        relay = null;
      }
    } finally {
      db.execute("DROP OWNED BY " + role);
      db.execute("DROP ROLE " + role);
    }
  }

  private List<ILoggingEvent> warnings() {
    return log.events().stream()
        .filter(e -> e.getLevel() == Level.WARN)
        .filter(e -> e.getFormattedMessage().contains("VACUUM"))
        .toList();
  }

  private static void record(int events) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    DSLContext dsl = TestSupport.mapped(db);
    dsl.transaction(
        tx ->
            outbox.recordAll(
                tx.dsl(),
                IntStream.range(0, events)
                    .mapToObj(i -> OutboxEvent.of("order", "o-" + i, "order.created", "{}"))
                    .toList()));
  }

  /** The events table's manual VACUUM count, as the statistics have it now. */
  private static long vacuumCount() {
    DSLContext dsl = DSL.using(db.dataSource(), org.jooq.SQLDialect.POSTGRES);
    // A statistics view outside the generated model, read in a transaction of its own each time.
    return dsl.resultQuery(
            "SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = ? AND relname ="
                + " 'outbox_events'",
            db.schema())
        .fetchOne(0, Long.class);
  }

  private static HikariDataSource pool(String role) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestDatabase.jdbcUrl());
    config.setUsername(role);
    config.setMaximumPoolSize(4);
    config.setPoolName("vacuum-" + role);
    return new HikariDataSource(config);
  }
}
