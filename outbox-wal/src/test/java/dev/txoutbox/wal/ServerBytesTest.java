package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.net.ssl.SSLSocketFactory;
import org.junit.jupiter.api.Test;
import org.postgresql.replication.PGReplicationStream;

/**
 * {@link ServerBytes} on a real replication connection: it reaches the socket of the driver version
 * the build uses (a driver upgrade that hides it fails here, not as a slower relay), and tells a
 * stream with unread bytes from one without.
 */
class ServerBytesTest {

  @Test
  void tellsWhetherTheServerSentBytesNotReadYet() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("sb_");
    String slot = "server_bytes_" + tables.schema();
    LogicalServer.publicationAndSlot(tables, slot);
    try (Connection c = LogicalServer.replication()) {
      ServerBytes server = ServerBytes.of(c);
      assertThat(server.known())
          .as("the driver's socket is reachable: %s", server.unknownWhy())
          .isTrue();
      PGReplicationStream stream = LogicalServer.stream(c, slot, false);
      Outbox outbox = Outbox.builder().tables(tables).build();
      for (int round = 0; round < 3; round++) {
        // Read until nothing is unread (a keepalive may come in between).
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  drain(stream);
                  return server.none();
                });
        LogicalServer.dsl(tables)
            .transaction(tx -> outbox.record(tx.dsl(), OutboxEvent.of("order", "o", "e", "{}")));
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(1))
            .until(() -> !server.none());
        int kinds = 0;
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (kinds < 3) { // Begin, the Relation on the first round, Insert, Commit
          assertThat(System.nanoTime()).as("the transaction read within 30 s").isLessThan(until);
          ByteBuffer b = stream.readPending();
          if (b != null && "BIC".indexOf(b.get(b.position())) >= 0) {
            kinds++;
          }
        }
      }
      stream.close();
    } finally {
      LogicalServer.execute("SELECT pg_drop_replication_slot('" + slot + "')");
      LogicalServer.execute("DROP PUBLICATION " + slot);
    }
  }

  @Test
  void anSslSocketNeverSaysNothingIsThere() throws Exception {
    // It counts only decrypted bytes: "none" while encrypted ones wait would end a batch at every
    // Commit of a backlog.
    ServerBytes server = ServerBytes.of(SSLSocketFactory.getDefault().createSocket());
    assertThat(server.known()).isFalse();
    assertThat(server.none()).isFalse();
    assertThat(server.unknownWhy()).contains("SSL");
  }

  @Test
  void aConnectionNotOfTheDriverNeverSaysNothingIsThere() {
    Connection other =
        (Connection)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  throw new SQLException("not a pgjdbc connection");
                });
    ServerBytes server = ServerBytes.of(other);
    assertThat(server.known()).isFalse();
    assertThat(server.none()).isFalse();
    assertThat(server.unknownWhy()).contains("not a pgjdbc connection");
  }

  /** Reads until the stream has had nothing for 200 ms (keepalives included). */
  private static void drain(PGReplicationStream stream) throws SQLException {
    long quietSince = System.nanoTime();
    while (System.nanoTime() - quietSince < Duration.ofMillis(200).toNanos()) {
      if (stream.readPending() != null) {
        quietSince = System.nanoTime();
      }
    }
  }
}
