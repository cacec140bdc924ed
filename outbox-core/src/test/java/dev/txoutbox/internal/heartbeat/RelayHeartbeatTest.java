package dev.txoutbox.internal.heartbeat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.TestSupport;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A relay's heartbeat row against real PostgreSQL: what a beat writes, the last cycle's age on the
 * database's clock, the bounded cleanup, a failing beat that is logged once and never thrown, and
 * the polling relay's row from start to close. Beats are driven directly, time by a fake monotonic
 * clock.
 */
class RelayHeartbeatTest {

  private static TestDatabase db;
  private static DSLContext sql;
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @BeforeAll
  static void database() {
    db = TestDatabase.create("heartbeat");
    sql = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void empty() {
    db.execute("DELETE FROM " + db.schema() + ".outbox_relays");
  }

  private RelayHeartbeat beat(OutboxTables tables, String settings) {
    return new RelayHeartbeat(
        DSL.using(db.dataSource(), SQLDialect.POSTGRES),
        tables,
        "billing",
        RelayHeartbeat.Kind.POLLING,
        settings,
        Duration.ofSeconds(10),
        nanos::get,
        false);
  }

  private Record row(RelayHeartbeat beat) {
    return sql.fetchOne(
        "SELECT *, extract(epoch FROM last_beat_at - last_cycle_at) AS cycle_age"
            + " FROM "
            + db.schema()
            + ".outbox_relays WHERE id = ?",
        beat.id());
  }

  @Test
  void aBeatWritesTheRelaysRowAndTheLastCycleAsAnAgeOnTheDatabasesClock() {
    RelayHeartbeat beat = beat(OutboxTables.in(db.schema()), "batchSize=100");

    beat.beat(false);
    Record first = row(beat);
    assertThat(first.get("relay_name", String.class)).isEqualTo("billing");
    assertThat(first.get("kind", String.class)).isEqualTo("polling");
    assertThat(first.get("pid", Long.class)).isEqualTo(ProcessHandle.current().pid());
    assertThat(first.get("host", String.class)).isNotBlank();
    assertThat(first.get("settings", String.class)).isEqualTo("batchSize=100");
    assertThat(first.get("beat_interval_ms", Integer.class)).isEqualTo(10_000);
    assertThat(first.get("last_cycle_at")).isNull();
    assertThat(first.get("stopped_at")).isNull();

    beat.cycleCompleted();
    nanos.addAndGet(Duration.ofSeconds(30).toNanos());
    beat.beat(false);
    Record second = row(beat);
    assertThat(second.get("cycle_age", Double.class)).isEqualTo(30.0);
    assertThat(second.get("started_at")).isEqualTo(first.get("started_at"));
    assertThat(sql.fetchCount(DSL.table(DSL.name(db.schema(), "outbox_relays")))).isEqualTo(1);

    beat.beat(true);
    assertThat(row(beat).get("stopped_at")).isNotNull();
  }

  @Test
  void theSettingsAreMaskedAndCut() {
    RelayHeartbeat beat =
        beat(OutboxTables.in(db.schema()), "uri=amqp://app:s3cr3t-pw@broker/vh password=hunter2");
    beat.beat(false);
    assertThat(row(beat).get("settings", String.class))
        .doesNotContain("s3cr3t-pw", "hunter2")
        .contains("****");

    RelayHeartbeat long_ = beat(OutboxTables.in(db.schema()), "x".repeat(10_000));
    long_.beat(false);
    assertThat(row(long_).get("settings", String.class))
        .hasSize(RelayHeartbeat.MAX_SETTINGS_LENGTH)
        .endsWith("…");
  }

  @Test
  void rowsNotSeenForAWeekAreDeletedAHundredAtATimeAtMostHourly() {
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_relays (id, relay_name, kind, host, pid, settings, beat_interval_ms,"
            + " started_at, last_beat_at) SELECT gen_random_uuid(), 'old', 'polling', 'h', 1, '',"
            + " 10000, now() - interval '9 days', now() - interval '8 days' FROM"
            + " generate_series(1, 150)");
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_relays (id, relay_name, kind, host, pid, settings, beat_interval_ms,"
            + " started_at, last_beat_at) VALUES (gen_random_uuid(), 'recent', 'wal', 'h', 1, '',"
            + " 10000, now() - interval '6 days', now() - interval '6 days')");
    RelayHeartbeat beat = beat(OutboxTables.in(db.schema()), "");

    beat.beat(false);
    assertThat(count("relay_name = 'old'")).isEqualTo(50);
    beat.beat(false); // within the hour: no cleanup
    assertThat(count("relay_name = 'old'")).isEqualTo(50);
    nanos.addAndGet(RelayHeartbeat.CLEANUP_EVERY.toNanos());
    beat.beat(false);
    assertThat(count("relay_name = 'old'")).isZero();
    assertThat(count("relay_name = 'recent'")).isEqualTo(1);
    assertThat(count("relay_name = 'billing'")).isEqualTo(1);
  }

  private int count(String where) {
    return sql.fetchCount(DSL.table(DSL.name(db.schema(), "outbox_relays")), DSL.condition(where));
  }

  @Test
  void aFailingBeatIsLoggedOnceAndNeverThrown() {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger logger = (Logger) LoggerFactory.getLogger("dev.txoutbox.relay.heartbeat");
    logs.start();
    logger.addAppender(logs);
    try {
      RelayHeartbeat beat = beat(OutboxTables.in("no_such_schema_here"), "");
      assertThatCode(
              () -> {
                beat.beatQuietly();
                beat.beatQuietly();
                beat.beatQuietly();
              })
          .doesNotThrowAnyException();
      assertThat(logs.list)
          .filteredOn(e -> e.getLevel() == Level.WARN)
          .singleElement()
          .satisfies(
              e ->
                  assertThat(e.getFormattedMessage())
                      .contains(
                          "relay billing: its heartbeat to no_such_schema_here.outbox_relays"
                              + " failed; the relay goes on"));
    } finally {
      logger.detachAppender(logs);
    }
  }

  @Test
  void thePollingRelayBeatsWhileItRunsAndStampsItsStopWhenClosed() {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        TestSupport.relayBuilder(db, publisher)
            .config(
                RelayConfig.builder()
                    .name("heartbeat-relay")
                    .minPollInterval(Duration.ofMillis(10))
                    .build())
            .build();
    relay.start();
    try {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> count("relay_name = 'heartbeat-relay' AND kind = 'polling'") == 1);
    } finally {
      relay.close(Duration.ofSeconds(10));
    }
    Record row =
        sql.fetchOne(
            "SELECT * FROM " + db.schema() + ".outbox_relays WHERE relay_name = 'heartbeat-relay'");
    assertThat(row.get("stopped_at")).isNotNull();
    // The last beat, at close, carries the cycles the workers completed before they stopped.
    assertThat(row.get("last_cycle_at")).isNotNull();
    assertThat(row.get("settings", String.class))
        .contains("RelayConfig{name=heartbeat-relay", "; publisher ");
  }
}
