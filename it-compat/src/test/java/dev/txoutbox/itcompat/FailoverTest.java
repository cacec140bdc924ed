package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * Managed PostgreSQL failover as a relay sees it: its primary goes silent in the middle of a batch
 * (a proxy that holds sockets and answers nothing), is stopped, and its streaming standby is
 * promoted. The relay's URL lists both hosts with {@code targetServerType=primary} and the timeouts
 * of {@code docs/postgres-connections.md}; it must publish on the new primary within {@link
 * #RESUME_BOUND} of the promotion, without a restart. Two servers of this machine's Debian
 * PostgreSQL ({@link StandbyPair}); the shared service is not used.
 */
class FailoverTest {

  /**
   * The relay's URL parameters under test, after the host list. {@code sslmode=disable} because
   * these servers have no TLS: with pgjdbc's default {@code prefer}, a silent host costs {@code
   * socketTimeout} twice (the TLS request, then a plain retry); with TLS use {@code require} or
   * {@code verify-full}, which do not retry.
   */
  static final String PARAMETERS =
      "sslmode=disable&targetServerType=primary&connectTimeout=2&socketTimeout=5&loginTimeout=10&tcpKeepAlive=true";

  /** HikariCP's wait for a connection: longer than pgjdbc's {@code loginTimeout}. */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(12);

  /**
   * How soon after the promotion the relay publishes on the new primary: the statement stuck on the
   * silent primary ends after {@code socketTimeout} (5 s); each new connection first tries the
   * silent host until {@code socketTimeout} (5 s) then the standby; the relay's cycle backoff is at
   * most 10 s; and a margin for a loaded machine.
   */
  static final Duration RESUME_BOUND = Duration.ofSeconds(30);

  @Test
  void aRelayOnAMultiHostUrlPublishesOnThePromotedStandbyWhileTheOldPrimaryIsSilent()
      throws Exception {
    try (StandbyPair pair = StandbyPair.start();
        SilentProxy proxy = SilentProxy.start(pair.primaryPort());
        HikariDataSource primary = pool("primary", StandbyPair.url(pair.primaryPort()), 3, null);
        HikariDataSource relayPool =
            pool(
                "failover",
                "jdbc:postgresql://127.0.0.1:"
                    + proxy.port()
                    + ",127.0.0.1:"
                    + pair.standbyPort()
                    + "/postgres?"
                    + PARAMETERS,
                2,
                CONNECTION_TIMEOUT)) {
      OutboxTables tables = OutboxTables.in("failover");
      OutboxSchema.migrate(primary, tables);
      Outbox outbox = Outbox.builder().tables(tables).build();
      CountDownLatch publishing = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      AtomicInteger batches = new AtomicInteger();
      RecordingPublisher publisher =
          new RecordingPublisher()
              .answer(
                  m -> {
                    if (batches.getAndIncrement() == 0) {
                      publishing.countDown();
                      try {
                        release.await(1, TimeUnit.MINUTES);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }
                    return PublishResult.published();
                  });
      UUID before = write(primary, outbox, "before");
      try (OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(relayPool)
              .tables(tables)
              .publisher(publisher)
              .config(
                  RelayConfig.builder()
                      .name("failover")
                      .maxPollInterval(Duration.ofMillis(200))
                      .shutdownTimeout(Duration.ofSeconds(1))
                      .build())
              .build()) {
        relay.start();
        try {
          assertThat(publishing.await(30, TimeUnit.SECONDS)).isTrue();
          pair.awaitStandbyCaughtUp();
          proxy.silence();
          pair.stopPrimary();
          pair.promoteStandby();
        } finally {
          release.countDown(); // the batch's completion goes to the silent old primary
        }
        long promotedAt = System.nanoTime();
        try (HikariDataSource promoted =
            pool("promoted", StandbyPair.url(pair.standbyPort()), 3, null)) {
          UUID after = write(promoted, outbox, "after");
          await().atMost(RESUME_BOUND).until(() -> publisher.publishedIds().contains(after));
          System.out.printf(
              "failover: the relay published on the promoted standby %d ms after the promotion%n",
              Duration.ofNanos(System.nanoTime() - promotedAt).toMillis());
          // The event of the batch cut off is published again on the new primary: at least once.
          await().atMost(RESUME_BOUND).until(() -> publisher.publishedIds().contains(before));
          await().atMost(RESUME_BOUND).until(() -> relay.admin().pendingCount() == 0);
        }
      }
    }
  }

  private static UUID write(DataSource dataSource, Outbox outbox, String type) {
    return DSL.using(dataSource, SQLDialect.POSTGRES)
        .transactionResult(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", type, "{}")));
  }

  private static HikariDataSource pool(
      String name, String url, int size, Duration connectionTimeout) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(0);
    if (connectionTimeout != null) {
      config.setConnectionTimeout(connectionTimeout.toMillis());
    }
    return new HikariDataSource(config);
  }
}
