package dev.txoutbox.bench;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The least any relay reading the WAL does: reads a slot's {@code pgoutput} stream (protocol 1, as
 * the WAL relay asks for it), counts the Insert messages without decoding them, and confirms each
 * Commit's end position, sent with the driver's status update every {@link #STATUS_INTERVAL}. It
 * records nothing in the database, so its figures bound every WAL relay from above: the WAL
 * sender's decoding and sending, and one socket read path in the JVM. Not thread-safe; {@link
 * #close()} may be called from any thread, and ends a {@link #readInBackground() background read}.
 */
final class SlotReader implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SlotReader.class);

  /** How often the driver sends the confirmed position: its builder's default. */
  static final Duration STATUS_INTERVAL = Duration.ofSeconds(10);

  private final Connection connection;
  private final PGReplicationStream stream;
  private final AtomicLong inserts = new AtomicLong();
  private final CountDownLatch ended = new CountDownLatch(1);
  private volatile boolean closed;
  private volatile boolean background;

  private SlotReader(Connection connection, PGReplicationStream stream) {
    this.connection = connection;
    this.stream = stream;
  }

  /** Opens a stream on {@code slot} of the database at {@code url}, for {@code publication}. */
  static SlotReader open(String url, Properties credentials, String slot, String publication)
      throws SQLException {
    Properties p = new Properties();
    p.putAll(credentials);
    PGProperty.REPLICATION.set(p, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "10");
    PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    Connection c = DriverManager.getConnection(url, p);
    try {
      PGReplicationStream stream =
          c.unwrap(PGConnection.class)
              .getReplicationAPI()
              .replicationStream()
              .logical()
              .withSlotName(slot)
              .withSlotOption("proto_version", "1")
              .withSlotOption("publication_names", publication)
              .withStatusInterval((int) STATUS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS)
              .start();
      return new SlotReader(c, stream);
    } catch (SQLException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** Insert messages read so far. */
  long inserts() {
    return inserts.get();
  }

  /**
   * Reads until {@code events} Insert messages in all were read, or {@code timeout} passed.
   *
   * @return whether they were
   */
  boolean readInserts(long events, Duration timeout) throws SQLException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (inserts.get() < events && System.nanoTime() < deadline && !closed) {
      ByteBuffer message = stream.readPending();
      if (message == null) {
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      } else {
        take(message);
      }
    }
    return inserts.get() >= events;
  }

  /**
   * Reads on a thread of its own ({@code slot-reader}), blocking on the socket between messages,
   * until {@link #close()}.
   */
  void readInBackground() {
    background = true;
    Thread t =
        new Thread(
            () -> {
              try {
                while (!closed) {
                  ByteBuffer message = stream.read();
                  if (message != null) {
                    take(message);
                  }
                }
              } catch (SQLException e) {
                if (!closed) {
                  log.warn("the slot reader's stream failed: {}", e.toString());
                }
              } finally {
                ended.countDown();
              }
            },
            "slot-reader");
    t.setDaemon(true);
    t.start();
  }

  /** Counts an Insert; confirms a Commit's end position (sent with the next status update). */
  private void take(ByteBuffer message) {
    int at = message.position();
    switch (message.get(at)) {
      case 'I' -> inserts.incrementAndGet();
      case 'C' -> {
        // Commit: kind, flags (1 byte), commit LSN (8), end LSN (8), time (8).
        LogSequenceNumber end = LogSequenceNumber.valueOf(message.getLong(at + 10));
        stream.setAppliedLSN(end);
        stream.setFlushedLSN(end);
      }
      default -> {}
    }
  }

  /**
   * Closes the stream: a background read ends (its last positions are not sent: the stream is not
   * the closing thread's to write to); otherwise the confirmed position is sent first.
   */
  @Override
  public void close() throws SQLException {
    if (closed) {
      return;
    }
    closed = true;
    if (!background) {
      try {
        stream.forceUpdateStatus();
      } finally {
        connection.close();
      }
      return;
    }
    connection.close(); // ends the blocked read with an exception the thread expects
    try {
      if (!ended.await(10, TimeUnit.SECONDS)) {
        log.warn("the slot reader's thread did not end within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
