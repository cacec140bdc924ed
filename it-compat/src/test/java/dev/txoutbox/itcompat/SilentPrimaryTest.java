package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A primary that goes silent (accepts and holds sockets, answers nothing) under a polling relay
 * that is in the middle of a batch, then comes back: with pgjdbc's {@code socketTimeout}, {@code
 * connectTimeout} and {@code loginTimeout} in the relay's URL and a short HikariCP {@code
 * connectionTimeout}, the relay gives the stuck statement up, fails its cycles while the primary is
 * silent, and publishes again within {@link #RESUME_BOUND} of the primary's return; without them
 * (pgjdbc's and HikariCP's defaults) the same relay is still stuck in a socket read once the other
 * has recovered, past its {@code socketTimeout} and a margin. On a real network the kernel would
 * end that read after its TCP retransmission timeout (about 15 minutes on Linux); the proxy here
 * acknowledges every byte, so it would wait for ever. Shared PostgreSQL, a database of its own.
 */
class SilentPrimaryTest {

  private static final String DATABASE = "itcompat_silent";

  /** pgjdbc's timeouts in seconds: the relay's URL parameters under test. */
  private static final int SOCKET_TIMEOUT = 5;

  private static final String TIMEOUTS =
      "connectTimeout=2&loginTimeout=3&socketTimeout=" + SOCKET_TIMEOUT + "&tcpKeepAlive=true";

  /** HikariCP's wait for a connection in the configured pool. */
  private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(2);

  /**
   * How soon the configured relay publishes again once the primary answers: its cycle backoff after
   * failed cycles (at most 10 s), plus a connection attempt already held by the silent primary (up
   * to {@code loginTimeout}, 3 s), plus a margin for a loaded machine.
   */
  private static final Duration RESUME_BOUND = Duration.ofSeconds(20);

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static HikariDataSource direct;

  @BeforeAll
  static void createDatabase() throws Exception {
    SharedPostgres.recreateDatabase(DATABASE);
    direct = SharedPostgres.pool("silent-direct", SharedPostgres.url(DATABASE), 2);
  }

  @AfterAll
  static void dropDatabase() throws Exception {
    try {
      if (direct != null) {
        direct.close();
      }
    } finally {
      SharedPostgres.drop(DATABASE);
    }
  }

  /** One relay behind its own proxy, with a publisher that can hold its first batch. */
  private static final class Subject implements AutoCloseable {
    final String name;
    final OutboxTables tables;
    final Outbox outbox;
    final SilentProxy proxy;
    final HikariDataSource pool;
    final OutboxRelay relay;
    final CountDownLatch publishing = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final RecordingPublisher publisher;
    final AtomicInteger failedCycles = new AtomicInteger();

    /**
     * With {@code configured}, {@link #TIMEOUTS} in the URL and HikariCP's {@code
     * connectionTimeout} at {@link #CONNECTION_TIMEOUT}; otherwise pgjdbc's and HikariCP's
     * defaults.
     */
    Subject(String name, boolean configured) throws Exception {
      this.name = name;
      this.tables = OutboxTables.in(name);
      OutboxSchema.migrate(direct, tables);
      this.outbox = Outbox.builder().tables(tables).build();
      this.proxy = SilentProxy.start(SharedPostgres.PORT);
      HikariConfig config = new HikariConfig();
      config.setPoolName(name);
      config.setJdbcUrl(
          "jdbc:postgresql://127.0.0.1:"
              + proxy.port()
              + "/"
              + DATABASE
              + (configured ? "?" + TIMEOUTS : ""));
      config.setUsername("postgres");
      config.setMaximumPoolSize(2);
      config.setMinimumIdle(0);
      if (configured) {
        config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
        config.setValidationTimeout(CONNECTION_TIMEOUT.toMillis() / 2);
      }
      this.pool = new HikariDataSource(config);
      AtomicInteger batches = new AtomicInteger();
      this.publisher =
          new RecordingPublisher()
              .answer(
                  m -> {
                    if (batches.getAndIncrement() == 0) {
                      publishing.countDown();
                      try {
                        release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }
                    return PublishResult.published();
                  });
      this.relay =
          OutboxRelay.builder()
              .dataSource(pool)
              .tables(tables)
              .publisher(publisher)
              .listener(
                  new RelayListener() {
                    @Override
                    public void cycleFailed(Throwable error) {
                      failedCycles.incrementAndGet();
                    }
                  })
              .config(
                  RelayConfig.builder()
                      .name(name)
                      .batchSize(1)
                      .maxPollInterval(Duration.ofMillis(200))
                      .shutdownTimeout(Duration.ofSeconds(1))
                      .build())
              .build();
    }

    UUID write(String type) {
      return DSL.using(direct, SQLDialect.POSTGRES)
          .transactionResult(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", type, "{}")));
    }

    /** The stack of the relay's worker, one frame a line. */
    String workerStack() {
      return Thread.getAllStackTraces().entrySet().stream()
          .filter(e -> e.getKey().getName().equals("outbox-relay-" + name + "-worker-1"))
          .map(
              e ->
                  Arrays.stream(e.getValue())
                      .map(String::valueOf)
                      .collect(Collectors.joining("\n")))
          .findFirst()
          .orElse("(no worker thread)");
    }

    @Override
    public void close() throws Exception {
      release.countDown();
      // The proxy first: a worker stuck in a socket read is freed only by its socket's end.
      try {
        proxy.close();
      } finally {
        try {
          relay.close();
        } finally {
          pool.close();
        }
      }
    }
  }

  @Test
  void aRelayWithSocketTimeoutResumesAfterASilentPrimaryAndOneWithoutStaysStuck() throws Exception {
    try (Subject timeouts = new Subject("silent_timeouts", true);
        Subject defaults = new Subject("silent_defaults", false)) {
      List<Subject> both = List.of(timeouts, defaults);
      for (Subject s : both) {
        s.write("first");
        s.relay.start();
      }
      for (Subject s : both) {
        // Each worker is in its batch's transaction, its connection borrowed, waiting on the
        // broker.
        assertThat(s.publishing.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        s.proxy.silence();
      }
      long silentAt = System.nanoTime();
      for (Subject s : both) {
        s.release.countDown(); // the batch's completion now goes to a primary that never answers
      }
      // The configured relay gives the statement up after socketTimeout, then fails to connect
      // (a connection held by the silent primary) at least once.
      await()
          .atMost(WAIT)
          .until(() -> timeouts.failedCycles.get() >= 2 && timeouts.proxy.held() >= 1);

      timeouts.proxy.forward();
      defaults.proxy.forward();
      long forwardAt = System.nanoTime();
      UUID afterTimeouts = timeouts.write("after");
      UUID afterDefaults = defaults.write("after");
      await()
          .atMost(RESUME_BOUND)
          .until(() -> timeouts.publisher.publishedIds().contains(afterTimeouts));
      Duration resumed = Duration.ofNanos(System.nanoTime() - forwardAt);
      // At least once: the event of the batch cut off is published again, after the primary's
      // return.
      await().atMost(WAIT).until(() -> countPending(timeouts) == 0);
      System.out.printf(
          "silent primary: configured relay resumed %d ms after the primary answered again,"
              + " %d ms after it went silent%n",
          resumed.toMillis(), Duration.ofNanos(System.nanoTime() - silentAt).toMillis());

      // The relay on the defaults, past the other's socketTimeout and a margin: still in its read.
      Duration margin = Duration.ofSeconds(SOCKET_TIMEOUT + 3);
      await().atMost(WAIT).until(() -> System.nanoTime() - silentAt >= margin.toNanos());
      assertThat(defaults.publisher.publishedIds()).doesNotContain(afterDefaults);
      assertThat(defaults.failedCycles.get()).isZero();
      assertThat(defaults.workerStack())
          .as("the worker of the relay without socketTimeout")
          .contains("org.postgresql.core.PGStream.receive");
    }
  }

  private static long countPending(Subject s) {
    DSLContext dsl = DSL.using(direct, SQLDialect.POSTGRES);
    return dsl.fetchSingle(
            "SELECT count(*) FROM "
                + s.tables.schema()
                + "."
                + s.tables.eventsTable()
                + " WHERE processed_at IS NULL")
        .get(0, Long.class);
  }
}
