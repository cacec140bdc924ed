package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.wal.WalRelay;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The WAL relay's replication stream under a primary that goes silent, as {@link SilentPrimaryTest}
 * does to the polling relay: the relay's {@code replicationUrl} goes through a {@link SilentProxy},
 * its {@code dataSource} (and the writer) straight to the server. pgjdbc reads the stream without a
 * timeout, so before the stream had a bound of its own the relay read nothing for ever once the
 * proxy went silent (the kernel's TCP timeout on a real network, about 15 minutes); now it gives
 * the stream up within {@link #GIVEN_UP_BOUND} and reconnects with its backoff. The relay runs on
 * its defaults, the sweeper off (it would publish the event through the {@code dataSource} and hide
 * the stream's state). A PostgreSQL 15 cluster of the test's own with {@code wal_level=logical}.
 */
class SilentWalPrimaryTest {

  /**
   * How soon after its last message the relay gives a silent stream up, on its defaults: 10 s
   * without a message, 10 s waiting for the answer to its status request, at most 5 s for the check
   * connection held by the silent proxy (3 status intervals), plus a margin for a loaded machine.
   */
  private static final Duration GIVEN_UP_BOUND = Duration.ofSeconds(40);

  /**
   * How soon the relay publishes once the primary answers again, after it gave the stream up: a
   * reconnect attempt already held by the silent primary (5 s), the reconnect backoff (1 s, 2 s, 4
   * s after the first failures in a row), plus a margin.
   */
  private static final Duration RESUME_BOUND = Duration.ofSeconds(20);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static LogicalServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = LogicalServer.cluster(15, Map.of());
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aWalRelayGivesUpASilentStreamAndPublishesOnceThePrimaryAnswersAgain() throws Exception {
    OutboxTables tables = OutboxTables.in("wal_silent");
    OutboxSchema.migrate(server.dataSource(), tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    CycleFailures listener = new CycleFailures();
    List<Throwable> failures = listener.all();
    try (SilentProxy proxy = SilentProxy.start(server.port());
        LogCapture log = LogCapture.of("dev.txoutbox.wal");
        WalRelay relay =
            WalRelay.builder()
                .dataSource(server.dataSource())
                .replicationUrl(
                    "jdbc:postgresql://127.0.0.1:" + proxy.port() + "/postgres",
                    server.credentials())
                .tables(tables)
                .publisher(publisher)
                .config(RelayConfig.builder().name("wal-silent").build())
                .sweeper(false)
                .listener(listener)
                .build()) {
      relay.start();
      UUID before = write(outbox, "before");
      await().atMost(WAIT).until(() -> publisher.publishedIds().contains(before));

      proxy.silence(); // the stream's server side ends; its client side hears nothing more
      long silentAt = System.nanoTime();
      UUID after = write(outbox, "after");

      // The relay notices, drops the stream and tries the silent primary again (held there).
      await().atMost(GIVEN_UP_BOUND).until(() -> !failures.isEmpty());
      Duration givenUp = Duration.ofNanos(System.nanoTime() - silentAt);
      assertThat(failures.get(0))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("replication stream")
          .hasMessageContaining("no answer");
      assertThat(((SQLException) failures.get(0)).getSQLState()).isEqualTo("08006");
      assertThat(log.messages()).contains("relay wal-silent").contains("no answer");
      await().atMost(WAIT).until(() -> failures.size() >= 2 && proxy.held() >= 2);
      assertThat(publisher.publishedIds()).doesNotContain(after);

      proxy.forward();
      long forwardAt = System.nanoTime();
      await().atMost(RESUME_BOUND).until(() -> publisher.publishedIds().contains(after));
      System.out.printf(
          "silent WAL primary: stream given up %d ms after the silence began; published %d ms"
              + " after the primary answered again (%d reconnects)%n",
          givenUp.toMillis(),
          Duration.ofNanos(System.nanoTime() - forwardAt).toMillis(),
          relay.reconnects());
      assertThat(relay.reconnects()).isGreaterThanOrEqualTo(2);
    }
  }

  private static UUID write(Outbox outbox, String type) {
    return DSL.using(server.dataSource(), SQLDialect.POSTGRES)
        .transactionResult(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", type, "{}")));
  }
}
