package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A commit the stream delivers before other sessions can see it. The server decodes a commit once
 * it is flushed; the committing session makes it visible only afterwards, and, when it waits for a
 * synchronous standby, only after the standby's answer. This server of the test's own names a
 * standby that never comes ({@code synchronous_standby_names}), with {@code synchronous_commit =
 * local} for every session but the writer's: the writer's commit is flushed and streamed, then
 * stays invisible until the test cancels its wait.
 */
class WalRelayVisibilityTest {

  private static EmbeddedPostgres server;

  @BeforeAll
  static void start() throws Exception {
    server =
        EmbeddedPostgres.builder()
            .setServerConfig("wal_level", "logical")
            .setServerConfig("max_replication_slots", "4")
            .setServerConfig("max_wal_senders", "4")
            .setServerConfig("synchronous_standby_names", "nobody")
            .setServerConfig("synchronous_commit", "local")
            .start();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void anEventStreamedBeforeItsCommitIsVisibleIsPublishedOnceVisible() throws Exception {
    DataSource dataSource = server.getPostgresDatabase();
    OutboxTables tables = OutboxTables.in("visibility");
    OutboxSchema.migrate(dataSource, tables);
    RecordingPublisher publisher = new RecordingPublisher();
    Properties user = new Properties();
    user.setProperty("user", "postgres");
    try (WalRelay relay =
        WalRelay.builder()
            .dataSource(dataSource)
            .replicationUrl(server.getJdbcUrl("postgres", "postgres"), user)
            .tables(tables)
            .publisher(publisher)
            .config(WalTestKit.config(10))
            .build()) {
      relay.start();
      Outbox outbox = Outbox.builder().tables(tables).build();
      UUID before =
          DSL.using(dataSource, SQLDialect.POSTGRES, tables.settings(null))
              .transactionResult(
                  c -> outbox.record(c.dsl(), OutboxEvent.of("order", "o-1", "created", "{}")));

      // The writer's commit waits for the standby: flushed and streamed, not yet visible.
      CompletableFuture<Integer> pid = new CompletableFuture<>();
      CompletableFuture<UUID> waiting =
          CompletableFuture.supplyAsync(() -> recordWaiting(dataSource, tables, outbox, pid));
      await().atMost(WalTestKit.WAIT).until(() -> relay.visibilityWaits() > 0);
      assertThat(publisher.publishedIds()).containsExactly(before);

      // Its wait cancelled, the commit becomes visible, and the WAL relay publishes it itself.
      execute(dataSource, "SELECT pg_cancel_backend(" + pid.get(10, TimeUnit.SECONDS) + ")");
      UUID late = waiting.get(30, TimeUnit.SECONDS);
      await().atMost(WalTestKit.WAIT).until(() -> publisher.published().size() == 2);
      assertThat(publisher.publishedIds()).containsExactly(before, late);
      assertThat(relay.skippedEvents()).isZero();
    }
  }

  /** Records one event in a session that waits for the standby at commit; tells its pid first. */
  private static UUID recordWaiting(
      DataSource dataSource, OutboxTables tables, Outbox outbox, CompletableFuture<Integer> pid) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      // A session setting: plain SQL, as jOOQ has no statement for it.
      s.execute("SET synchronous_commit = on");
      try (ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
        r.next();
        pid.complete(r.getInt(1));
      }
      c.setAutoCommit(false);
      UUID id =
          outbox.record(
              DSL.using(c, SQLDialect.POSTGRES, tables.settings(null)),
              OutboxEvent.of("order", "o-1", "created", "{}"));
      c.commit(); // returns with a warning once the wait is cancelled: committed locally
      return id;
    } catch (Exception e) {
      pid.completeExceptionally(e);
      throw new IllegalStateException(e);
    }
  }

  private static void execute(DataSource dataSource, String sql) throws Exception {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql); // a server function call: plain SQL is shorter than its jOOQ form
    }
  }
}
