package dev.txoutbox.itcompat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.itcompat.PgBouncer.PoolMode;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The writer and the polling relay through Debian's PgBouncer (a child process per class, or per
 * test where the test needs a pool of one server connection), in transaction and in session mode,
 * in front of the shared PostgreSQL service, in a database of this class's own. What must be
 * configured is proved here: {@code prepareThreshold=0} in transaction mode (PgBouncer before 1.21
 * does not carry prepared statements), and a session (or direct) connection for the relay when it
 * LISTENs. See {@code docs/postgres-connections.md}.
 */
class PgBouncerTest {

  private static final String DATABASE = "itcompat_pgbouncer";

  /**
   * The name PgBouncer gives {@link #DATABASE} in session mode; every other name is transaction
   * mode.
   */
  private static final String SESSION_ALIAS = "itcompat_pgbouncer_session";

  /** What pgjdbc needs in transaction mode with PgBouncer before 1.21. */
  private static final String TRANSACTION_MODE_PARAMETERS = "prepareThreshold=0";

  private static final Duration WAIT = Duration.ofSeconds(30);

  private static PgBouncer bouncer;
  private static HikariDataSource direct;
  private static final AtomicInteger schemas = new AtomicInteger();

  private final List<AutoCloseable> closing = new ArrayList<>();

  /** The relay's log, DEBUG included, where its listener says when it listens. */
  private final LogCapture relayLog = closing(LogCapture.of("dev.txoutbox.relay"));

  @BeforeAll
  static void start() throws Exception {
    SharedPostgres.recreateDatabase(DATABASE);
    direct = SharedPostgres.pool("direct", SharedPostgres.url(DATABASE), 4);
    bouncer =
        PgBouncer.in(PoolMode.TRANSACTION, SharedPostgres.PORT)
            .alias(SESSION_ALIAS, DATABASE, PoolMode.SESSION)
            .start();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      if (bouncer != null) {
        bouncer.close();
      }
      if (direct != null) {
        direct.close();
      }
    } finally {
      SharedPostgres.drop(DATABASE);
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    Exception first = null;
    for (int i = closing.size() - 1; i >= 0; i--) {
      try {
        closing.get(i).close();
      } catch (Exception e) {
        if (first == null) {
          first = e;
        }
      }
    }
    closing.clear();
    if (first != null) {
      throw first;
    }
  }

  private <T extends AutoCloseable> T closing(T c) {
    closing.add(c);
    return c;
  }

  /** A pool through {@link #bouncer} in {@code mode}, with what that mode needs in the URL. */
  private HikariDataSource through(PoolMode mode, int size) {
    String url =
        switch (mode) {
          case SESSION -> bouncer.url(SESSION_ALIAS, "");
          case TRANSACTION -> bouncer.url(DATABASE, TRANSACTION_MODE_PARAMETERS);
        };
    return closing(SharedPostgres.pool("bouncer-" + mode.ini(), url, size));
  }

  private static OutboxTables freshOutbox(String name) {
    OutboxTables tables = OutboxTables.in(name + "_" + schemas.incrementAndGet());
    OutboxSchema.migrate(direct, tables);
    return tables;
  }

  private static DSLContext dsl(DataSource dataSource) {
    return DSL.using(dataSource, SQLDialect.POSTGRES);
  }

  private static long rows(OutboxTables tables, String where) {
    return dsl(direct)
        .fetchSingle(
            "SELECT count(*) FROM "
                + tables.schema()
                + "."
                + tables.eventsTable()
                + " WHERE "
                + where)
        .get(0, Long.class);
  }

  private static List<OutboxEvent> events(int n, int aggregates) {
    return IntStream.range(0, n)
        .mapToObj(
            i -> OutboxEvent.of("order", "agg-" + (i % aggregates), "e" + i, "{\"n\": " + i + "}"))
        .toList();
  }

  /**
   * Both modes carry the caller's transaction: {@code record} and {@code recordAll} write in it, a
   * rollback leaves nothing, and an auto-commit connection is refused before anything is written.
   */
  @ParameterizedTest
  @EnumSource(PoolMode.class)
  void theWriterRecordsInTheCallersTransactionThroughPgBouncer(PoolMode mode) {
    OutboxTables tables = freshOutbox("writer_" + mode.ini());
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext app = dsl(through(mode, 4));

    List<UUID> ids = new ArrayList<>();
    app.transaction(
        c -> {
          ids.add(outbox.record(c.dsl(), OutboxEvent.of("order", "a", "created", "{}")));
          ids.addAll(outbox.recordAll(c.dsl(), events(3, 1)));
          // Not visible outside the transaction before it commits.
          assertThat(rows(tables, "true")).isZero();
        });
    assertThatThrownBy(
            () ->
                app.transaction(
                    c -> {
                      outbox.recordAll(c.dsl(), events(2, 1));
                      throw new IllegalStateException("roll back");
                    }))
        .hasMessageContaining("roll back");
    assertThatThrownBy(() -> outbox.record(app, OutboxEvent.of("order", "a", "auto", "{}")))
        .isInstanceOf(IllegalStateException.class);

    assertThat(
            dsl(direct)
                .fetch(
                    "SELECT id FROM "
                        + tables.schema()
                        + "."
                        + tables.eventsTable()
                        + " ORDER BY seq")
                .getValues(0, UUID.class))
        .containsExactlyElementsOf(ids);
  }

  static Stream<Arguments> modesAndOrderings() {
    return Stream.of(PoolMode.values())
        .flatMap(
            m -> Stream.of(Ordering.NONE, Ordering.PER_AGGREGATE).map(o -> Arguments.of(m, o)));
  }

  /**
   * A started relay with two workers drains a backlog and what writers add meanwhile, both through
   * PgBouncer; per aggregate, in order.
   */
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("modesAndOrderings")
  void thePollingRelayDrainsThroughPgBouncer(PoolMode mode, Ordering ordering) throws Exception {
    OutboxTables tables = freshOutbox("relay_" + mode.ini() + "_" + ordering.name().toLowerCase());
    if (ordering != Ordering.NONE) {
      OutboxSchema.migrateOrderingIndex(direct, tables);
    }
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext writer = dsl(through(mode, 2));
    List<UUID> ids = new ArrayList<>();
    writer.transaction(c -> ids.addAll(outbox.recordAll(c.dsl(), events(300, 7))));
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        closing(
            OutboxRelay.builder()
                .dataSource(through(mode, 3))
                .tables(tables)
                .publisher(publisher)
                .config(
                    RelayConfig.builder()
                        .name("bouncer-" + mode.ini())
                        .batchSize(20)
                        .workers(2)
                        .ordering(ordering)
                        .build())
                .build());
    relay.start();
    for (int i = 0; i < 10; i++) {
      writer.transaction(c -> ids.addAll(outbox.recordAll(c.dsl(), events(10, 7))));
    }

    await().atMost(WAIT).until(() -> publisher.published().size() >= ids.size());
    await().atMost(WAIT).until(() -> rows(tables, "processed_at IS NULL") == 0);
    assertThat(publisher.publishedIds()).containsExactlyInAnyOrderElementsOf(ids);
    if (ordering != Ordering.NONE) {
      Map<String, List<Long>> seqs =
          publisher.published().stream()
              .collect(
                  Collectors.groupingBy(
                      OutboxMessage::aggregateId,
                      Collectors.mapping(OutboxMessage::sequence, Collectors.toList())));
      seqs.forEach((aggregate, s) -> assertThat(s).as(aggregate).isSorted());
    }
  }

  /**
   * Transaction mode with pgjdbc's default {@code prepareThreshold} (5): from its fifth run a
   * statement is a named server-side statement ({@code S_1}, …) that pgjdbc believes belongs to its
   * connection, but PgBouncer 1.18 hands the server connection to other clients, whose own {@code
   * S_1} then collides. Two relays on one server connection show it; {@code prepareThreshold=0}
   * fixes it.
   */
  @Test
  void transactionModeNeedsPrepareThresholdZero() throws Exception {
    try (PgBouncer single =
        PgBouncer.in(PoolMode.TRANSACTION, SharedPostgres.PORT).poolSize(1).start()) {
      assertThatThrownBy(() -> twoRelaysDrain(single, ""))
          .as("PgBouncer %s in transaction mode with pgjdbc's defaults", PgBouncer.version())
          .hasStackTraceContaining("prepared statement \"S_1\" already exists");
      assertThat(twoRelaysDrain(single, TRANSACTION_MODE_PARAMETERS)).containsExactly(8, 8);
    }
  }

  /** Two relays, each with a pool of its own, drain 8 events each, one per cycle, in turn. */
  private List<Integer> twoRelaysDrain(PgBouncer single, String parameters) throws Exception {
    List<Integer> drained = new ArrayList<>();
    for (String name : List.of("first", "second")) {
      OutboxTables tables = freshOutbox("prepared_" + name);
      Outbox outbox = Outbox.builder().tables(tables).build();
      dsl(direct).transaction(c -> outbox.recordAll(c.dsl(), events(8, 2)));
      try (HikariDataSource pool =
          SharedPostgres.pool("prepared-" + name, single.url(DATABASE, parameters), 1)) {
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(pool)
                .tables(tables)
                .publisher(new RecordingPublisher())
                .config(RelayConfig.builder().name("prepared-" + name).batchSize(1).build())
                .build();
        try {
          // In transaction mode PgBouncer resets nothing when a client leaves: the first relay's
          // named statements stay on the server connection after its pool is closed.
          drained.add(relay.drain().publishedCount());
        } finally {
          relay.close();
        }
      }
    }
    return drained;
  }

  /**
   * LISTEN through transaction mode: the LISTEN runs on whichever server connection the listener's
   * statement got, which then serves other clients, so the notification goes to the client that
   * holds it when it is sent (here the writer, with a pool of one server connection) and never to
   * the relay. The relay raises no error and falls back to its polling.
   */
  @Test
  void listenThroughTransactionModeLosesNotificationsAndTheRelayPolls() throws Exception {
    PgBouncer single =
        closing(PgBouncer.in(PoolMode.TRANSACTION, SharedPostgres.PORT).poolSize(1).start());
    OutboxTables tables = freshOutbox("listen_tx");
    OutboxSchema.migrateNotifyTrigger(direct, tables);
    String url = single.url(DATABASE, TRANSACTION_MODE_PARAMETERS);
    RecordingPublisher publisher = new RecordingPublisher();
    Duration poll = Duration.ofSeconds(3);
    OutboxRelay relay =
        closing(
            OutboxRelay.builder()
                .dataSource(closing(SharedPostgres.pool("listen-tx", url, 3)))
                .tables(tables)
                .publisher(publisher)
                .listenForNotifications(true)
                .config(
                    RelayConfig.builder()
                        .name("listen-tx")
                        .minPollInterval(poll)
                        .maxPollInterval(poll)
                        .build())
                .build());
    relay.start();
    awaitListening(tables);

    Outbox outbox = Outbox.builder().tables(tables).build();
    UUID id;
    PGNotification[] toWriter;
    try (Connection writer = DriverManager.getConnection(url, "postgres", "")) {
      writer.setAutoCommit(false);
      id =
          outbox.record(
              DSL.using(writer, SQLDialect.POSTGRES), OutboxEvent.of("order", "a", "e", "{}"));
      writer.commit();
      toWriter = writer.unwrap(PGConnection.class).getNotifications();
    }
    assertThat(toWriter)
        .as("the relay's notification, delivered to the writer")
        .extracting(PGNotification::getName)
        .containsExactly(tables.notifyChannel());
    // Published anyway, by the relay's polling (every 3 s here).
    await().atMost(WAIT).until(() -> publisher.publishedIds().contains(id));
  }

  /**
   * The documented configuration: writers through transaction mode, the relay that LISTENs through
   * session mode (or directly). The relay polls only once a minute here, so an event published
   * within 15 s was found on a notification.
   */
  @Test
  void aRelayListeningThroughSessionModeWakesOnWritersInTransactionMode() throws Exception {
    OutboxTables tables = freshOutbox("listen_session");
    OutboxSchema.migrateNotifyTrigger(direct, tables);
    RecordingPublisher publisher = new RecordingPublisher();
    Duration poll = Duration.ofMinutes(1);
    OutboxRelay relay =
        closing(
            OutboxRelay.builder()
                .dataSource(through(PoolMode.SESSION, 3))
                .tables(tables)
                .publisher(publisher)
                .listenForNotifications(true)
                .config(
                    RelayConfig.builder()
                        .name("listen-session")
                        .minPollInterval(poll)
                        .maxPollInterval(poll)
                        .build())
                .build());
    relay.start();
    awaitListening(tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext writer = dsl(through(PoolMode.TRANSACTION, 2));

    // The first event may be found by a cycle the relay runs on its own; once it is published, the
    // worker waits a minute or for a wake-up.
    UUID first =
        writer.transactionResult(
            c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "1", "{}")));
    await().atMost(poll.dividedBy(4)).until(() -> publisher.publishedIds().contains(first));
    UUID second =
        writer.transactionResult(
            c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "2", "{}")));
    await().atMost(poll.dividedBy(4)).until(() -> publisher.publishedIds().contains(second));
  }

  /**
   * A relay whose own connections go through transaction mode LISTENs on a session-mode data source
   * of its own ({@code listenForNotifications(DataSource)}): it wakes on each commit although its
   * pool cannot carry a LISTEN. The relay polls only once a minute here.
   */
  @Test
  void aRelayInTransactionModeListensThroughItsOwnSessionConnection() throws Exception {
    OutboxTables tables = freshOutbox("listen_split");
    OutboxSchema.migrateNotifyTrigger(direct, tables);
    RecordingPublisher publisher = new RecordingPublisher();
    Duration poll = Duration.ofMinutes(1);
    OutboxRelay relay =
        closing(
            OutboxRelay.builder()
                .dataSource(through(PoolMode.TRANSACTION, 3))
                .tables(tables)
                .publisher(publisher)
                .listenForNotifications(through(PoolMode.SESSION, 1))
                .config(
                    RelayConfig.builder()
                        .name("listen-split")
                        .minPollInterval(poll)
                        .maxPollInterval(poll)
                        .build())
                .build());
    relay.start();
    awaitListening(tables);
    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext writer = dsl(through(PoolMode.TRANSACTION, 2));

    UUID first =
        writer.transactionResult(
            c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "1", "{}")));
    await().atMost(poll.dividedBy(4)).until(() -> publisher.publishedIds().contains(first));
    UUID second =
        writer.transactionResult(
            c -> outbox.record(c.dsl(), OutboxEvent.of("order", "a", "2", "{}")));
    await().atMost(poll.dividedBy(4)).until(() -> publisher.publishedIds().contains(second));
  }

  /** Waits until the relay's listener says it LISTENs on the outbox's channel. */
  private void awaitListening(OutboxTables tables) {
    String said = "listening on channel " + tables.notifyChannel();
    await().atMost(WAIT).until(() -> relayLog.messages().contains(said));
  }

  /**
   * The relay's transaction spans the publish: in transaction mode it holds a server connection
   * (idle in transaction) for as long as the broker takes; size PgBouncer's pool for it.
   */
  @Test
  void theRelayHoldsAServerConnectionWhileItPublishes() throws Exception {
    OutboxTables tables = freshOutbox("held");
    Outbox outbox = Outbox.builder().tables(tables).build();
    dsl(direct).transaction(c -> outbox.recordAll(c.dsl(), events(3, 1)));
    CountDownLatch publishing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m -> {
                  publishing.countDown();
                  try {
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return PublishResult.published();
                });
    OutboxRelay relay =
        closing(
            OutboxRelay.builder()
                .dataSource(through(PoolMode.TRANSACTION, 2))
                .tables(tables)
                .publisher(publisher)
                .config(RelayConfig.builder().name("held").build())
                .build());
    relay.start();
    try {
      assertThat(publishing.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThat(
              dsl(direct)
                  .fetchSingle(
                      "SELECT count(*) FROM pg_stat_activity WHERE datname = ?"
                          // the claim's row locks gave it a transaction id; its last statement
                          // is the plan setting sent with the claim, not the claim itself
                          + " AND state = 'idle in transaction' AND backend_xid IS NOT NULL",
                      DATABASE)
                  .get(0, Long.class))
          .isEqualTo(1);
    } finally {
      release.countDown();
    }
    await().atMost(WAIT).until(() -> rows(tables, "processed_at IS NULL") == 0);
    assertThat(publisher.publishedIds()).hasSize(3);
  }
}
