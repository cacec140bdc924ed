package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The opt-in LISTEN/NOTIFY wake-up, for writers in another process. */
class NotificationRelayTest {

  private TestDatabase db;
  private HikariDataSource relayPool;
  private String application;
  private OutboxRelay relay;
  private final RecordingPublisher publisher = new RecordingPublisher();

  @BeforeEach
  void setUp() {
    db = TestDatabase.create("notify", 4);
    OutboxSchema.migrateNotifyTrigger(db.dataSource(), db.schema());
    application = "listener-" + UUID.randomUUID();
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(TestDatabase.jdbcUrl());
    config.setUsername("postgres");
    config.setMaximumPoolSize(3);
    config.addDataSourceProperty("ApplicationName", application);
    relayPool = new HikariDataSource(config);
    relay =
        OutboxRelay.builder()
            .dataSource(relayPool)
            .schema(db.schema())
            .publisher(publisher)
            .listenForNotifications(true)
            // Polling every 5 minutes: within the test, only a notification can publish.
            .config(
                RelayConfig.builder()
                    .name("notified")
                    .minPollInterval(Duration.ofMinutes(5))
                    .maxPollInterval(Duration.ofMinutes(5))
                    .build())
            .build();
    relay.start();
  }

  @AfterEach
  void tearDown() {
    relay.close();
    relayPool.close();
    db.close();
  }

  /** The pids of the relay's connections that are LISTENing. */
  private List<Integer> listeners() {
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .resultQuery(
            "select pid from pg_stat_activity where application_name = ? and query like 'LISTEN%'",
            application)
        .fetch(0, Integer.class);
  }

  /** Writes one event from "another process": a plain transaction, no in-process wake-up. */
  private UUID writeElsewhere() {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    DSLContext other = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    return other.transactionResult(
        tx -> outbox.record(tx.dsl(), "order", "n", "order.created", "{}"));
  }

  @Test
  void notificationFromTheTriggerWakesTheRelay() {
    await().atMost(Duration.ofSeconds(30)).until(() -> listeners().size() == 1);

    // Two events one after the other: the first might meet the listener's catch-up wake-up after
    // it connected; after a partial batch the relay waits 5 minutes, so only a notification can
    // publish the second.
    for (int i = 0; i < 2; i++) {
      UUID id = writeElsewhere();
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.publishCounts().containsKey(id));
    }
  }

  @Test
  void listenerReconnectsAfterItsConnectionIsKilled() {
    await().atMost(Duration.ofSeconds(30)).until(() -> listeners().size() == 1);
    int first = listeners().get(0);
    DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .resultQuery("select pg_terminate_backend(?)", first)
        .fetch();

    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> listeners().size() == 1 && listeners().get(0) != first);
    for (int i = 0; i < 2; i++) {
      UUID id = writeElsewhere();
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.publishCounts().containsKey(id));
    }
    assertThat(relay.isRunning()).isTrue();
  }

  @Test
  void listeningNeedsADataSource() {
    assertThatThrownBy(
            () ->
                OutboxRelay.builder()
                    .dsl(DSL.using(db.dataSource(), SQLDialect.POSTGRES))
                    .publisher(publisher)
                    .listenForNotifications(true)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dataSource");
  }
}
