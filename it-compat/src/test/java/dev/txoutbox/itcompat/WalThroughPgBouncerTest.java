package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.itcompat.PgBouncer.PoolMode;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.LogicalServer;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.wal.WalRelay;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The WAL relay's replication connection through PgBouncer: PgBouncer refuses it at the startup
 * packet (it does not carry replication connections), whatever its pool mode. The outbox's own
 * connections go to the server directly here, so the relay starts; only its stream fails. The
 * server is an embedded one with {@code wal_level=logical} (the shared service has {@code
 * replica}), of the first version {@code compat.postgres} names.
 */
class WalThroughPgBouncerTest {

  private static LogicalServer server;

  @BeforeAll
  static void start() throws Exception {
    server = CompatPostgres.start(CompatPostgres.majors().get(0));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * What a user who points {@code replicationUrl} at PgBouncer gets: the relay starts, then every
   * stream fails with an error that says the replication connection must bypass PgBouncer, with
   * PgBouncer's own {@code FATAL: unsupported startup parameter: replication} (SQLSTATE 08P01, a
   * connection failure), logged and reported to the listener, retried with backoff; nothing is
   * published by the stream.
   */
  @ParameterizedTest
  @EnumSource(PoolMode.class)
  void aReplicationConnectionThroughPgBouncerIsRefusedAtItsStartupPacket(PoolMode mode)
      throws Exception {
    OutboxTables tables = CompatPostgres.freshOutbox(server, "wal_bouncer_" + mode.ini());
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    try (PgBouncer bouncer = PgBouncer.in(mode, server.port()).start();
        WalRelay relay =
            WalRelay.builder()
                .dataSource(server.dataSource())
                .replicationUrl(bouncer.url("postgres", ""), server.credentials())
                .tables(tables)
                .publisher(new RecordingPublisher())
                .config(RelayConfig.builder().name("wal-bouncer-" + mode.ini()).build())
                .reconnectDelay(Duration.ofMillis(50))
                .listener(
                    new RelayListener() {
                      @Override
                      public void cycleFailed(Throwable error) {
                        failures.add(error);
                      }
                    })
                .build()) {
      relay.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> failures.size() >= 2);
    }
    for (Throwable failure : failures) {
      assertThat(failure)
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("must reach PostgreSQL directly, not through PgBouncer")
          .hasMessageContaining("unsupported startup parameter: replication");
      assertThat(((SQLException) failure).getSQLState()).isEqualTo("08P01");
    }
  }
}
