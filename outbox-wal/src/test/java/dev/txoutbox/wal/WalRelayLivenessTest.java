package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.postgresql.replication.PGReplicationStream;

/**
 * The bound on a silent replication stream ({@link StreamLiveness}) on the logical server, with a
 * short status interval: a healthy stream that stays quiet is kept, through the server's answer or,
 * where the relay cannot watch for it, the check connection; a stream whose slot its process no
 * longer reads, or whose server cannot be reached, is given up. The silent primary itself (a proxy
 * that stops forwarding) is it-compat's {@code SilentWalPrimaryTest}.
 */
class WalRelayLivenessTest {

  private static final Duration STATUS_INTERVAL = Duration.ofMillis(200);
  private static final Duration WAIT = WalTestKit.WAIT;

  @Test
  void anIdleRelayKeepsItsHealthyStreamThroughManyQuietIntervals() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("live_");
    RecordingPublisher publisher = new RecordingPublisher();
    Outbox outbox = Outbox.builder().tables(tables).build();
    try (WalTestKit kit = new WalTestKit()) {
      WalRelay relay =
          kit.relay(
              WalTestKit.builder(tables, publisher, WalTestKit.config(10))
                  .statusInterval(STATUS_INTERVAL));
      relay.start();
      UUID first = write(tables, outbox);
      await().atMost(WAIT).until(() -> publisher.publishedIds().contains(first));
      // Idle for 20 status intervals: the relay asks the server about every interval.
      await()
          .during(STATUS_INTERVAL.multipliedBy(20))
          .atMost(STATUS_INTERVAL.multipliedBy(20).plus(WAIT))
          .until(() -> relay.reconnects() == 0);
      UUID second = write(tables, outbox);
      await().atMost(WAIT).until(() -> publisher.publishedIds().contains(second));
      assertThat(relay.reconnects()).isZero();
    }
  }

  @Test
  void aQuietHealthyStreamAnswersTheStatusRequest() throws Exception {
    try (Stream s = Stream.open("live_answer_")) {
      StreamLiveness liveness = s.liveness(s.slot, LogicalServer.jdbcUrl(), ServerBytes.of(s.c));
      assertThat(ServerBytes.of(s.c).watchable()).isTrue();
      assertThat(untilAsked(s.stream, liveness)).isEqualTo(StreamLiveness.Verdict.ANSWERED);
      assertThat(untilAsked(s.stream, liveness)).isEqualTo(StreamLiveness.Verdict.ANSWERED);
      assertThat(s.c.isClosed()).isFalse();
    }
  }

  @Test
  void withoutAnAnswerToWatchTheCheckConnectionKeepsAStreamItsProcessReads() throws Exception {
    try (Stream s = Stream.open("live_check_")) {
      StreamLiveness liveness = s.liveness(s.slot, LogicalServer.jdbcUrl(), unwatchable());
      assertThat(untilAsked(s.stream, liveness)).isEqualTo(StreamLiveness.Verdict.READS_THE_SLOT);
      assertThat(s.c.isClosed()).isFalse();
    }
  }

  @Test
  void aStreamIsGivenUpWhenNoProcessReadsItsSlot() throws Exception {
    try (Stream s = Stream.open("live_gone_")) {
      // The check looks at a slot nobody reads, as after the stream's server process ended.
      String idle = s.slot + "_idle";
      LogicalServer.execute(
          "SELECT pg_create_logical_replication_slot('" + idle + "', 'pgoutput')");
      try {
        StreamLiveness liveness = s.liveness(idle, LogicalServer.jdbcUrl(), unwatchable());
        assertThatThrownBy(() -> untilAsked(s.stream, liveness))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("no answer to a status request")
            .hasMessageContaining("no process reads slot " + idle)
            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08006"));
        assertThat(s.c.isClosed()).as("the replication connection is aborted").isTrue();
      } finally {
        LogicalServer.execute("SELECT pg_drop_replication_slot('" + idle + "')");
      }
    }
  }

  @Test
  void aStreamIsGivenUpWhenItsServerCannotBeReachedToCheck() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    try (Stream s = Stream.open("live_unreachable_")) {
      StreamLiveness liveness =
          s.liveness(
              s.slot, "jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres", unwatchable());
      assertThatThrownBy(() -> untilAsked(s.stream, liveness))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("the server could not be reached to check the slot")
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08006"));
      assertThat(s.c.isClosed()).isTrue();
    }
  }

  /** A stream of a slot and publication of their own on a fresh outbox, dropped on close. */
  private static final class Stream implements AutoCloseable {
    final String slot;
    final Connection c;
    final PGReplicationStream stream;

    private Stream(String slot, Connection c, PGReplicationStream stream) {
      this.slot = slot;
      this.c = c;
      this.stream = stream;
    }

    static Stream open(String prefix) throws SQLException {
      OutboxTables tables = LogicalServer.freshOutbox(prefix);
      String slot = prefix + tables.schema();
      LogicalServer.publicationAndSlot(tables, slot);
      Connection c = LogicalServer.replication();
      return new Stream(slot, c, LogicalServer.stream(c, slot, false));
    }

    StreamLiveness liveness(String checkedSlot, String url, ServerBytes server) {
      java.util.Properties props = LogicalServer.credentials();
      props.setProperty("replication", "database");
      return new StreamLiveness(
          "liveness-test", checkedSlot, url, props, STATUS_INTERVAL, () -> true, c, stream, server);
    }

    @Override
    public void close() throws Exception {
      c.close();
      WalTestKit.dropSlot(LogicalServer.dataSource(), slot);
      LogicalServer.execute("DROP PUBLICATION " + slot);
    }
  }

  /** Reads {@code stream} until {@code liveness} asks the server, and returns what it found. */
  private static StreamLiveness.Verdict untilAsked(
      PGReplicationStream stream, StreamLiveness liveness) throws SQLException {
    long until = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() - until < 0) {
      if (stream.readPending() != null) {
        liveness.heard();
        continue;
      }
      StreamLiveness.Verdict verdict = liveness.check();
      if (verdict != StreamLiveness.Verdict.HEARD) {
        return verdict;
      }
    }
    throw new AssertionError("the stream was never quiet for " + STATUS_INTERVAL);
  }

  /** Bytes that cannot be watched, as where the driver's stream is not reachable. */
  private static ServerBytes unwatchable() {
    ServerBytes none = ServerBytes.of(new Socket());
    assertThat(none.watchable()).isFalse();
    return none;
  }

  private static UUID write(OutboxTables tables, Outbox outbox) {
    return LogicalServer.dsl(tables)
        .transactionResult(
            tx -> outbox.record(tx.dsl(), OutboxEvent.of("order", "a", "live", "{}")));
  }
}
