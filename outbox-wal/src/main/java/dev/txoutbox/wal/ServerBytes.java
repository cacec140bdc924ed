package dev.txoutbox.wal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import javax.net.ssl.SSLSocket;
import org.jspecify.annotations.Nullable;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;

/**
 * Whether the server has sent bytes the replication connection has not read yet, without waiting.
 *
 * <p>pgjdbc's {@code PGReplicationStream.readPending()} cannot say so: when nothing is buffered it
 * reads the socket with a 1 ms timeout. At the end of each batch that wait was most of the hand-off
 * time at moderate rates (1.15 of 2.4 ms at the median, 1,000 commits/s), so the relay asks the
 * socket itself. The driver does not expose its socket: it is read from the connection's protocol
 * stream by reflection (pgjdbc is an automatic module, open to it), and where that fails (another
 * driver version, a security manager) the relay waits as before.
 */
final class ServerBytes {

  private final @Nullable InputStream socket;
  private final String unknownWhy;

  /** The driver's protocol stream, for {@link #pending()}; null if it is not reachable. */
  private final @Nullable PGStream stream;

  private ServerBytes(InputStream socket, @Nullable PGStream stream) {
    this.socket = socket;
    this.unknownWhy = "";
    this.stream = stream;
  }

  private ServerBytes(String unknownWhy, @Nullable PGStream stream) {
    this.socket = null;
    this.unknownWhy = unknownWhy;
    this.stream = stream;
  }

  /** The socket of {@code replication}, or one that never knows, if the driver hides it. */
  static ServerBytes of(Connection replication) {
    try {
      Object executor = replication.unwrap(BaseConnection.class).getQueryExecutor();
      Field stream = QueryExecutorBase.class.getDeclaredField("pgStream");
      stream.setAccessible(true);
      PGStream pg = (PGStream) stream.get(executor);
      return of(pg.getSocket(), pg);
    } catch (ReflectiveOperationException
        | SQLException
        | RuntimeException
        | LinkageError e) { // LinkageError: a driver version without these classes or members
      return new ServerBytes("the driver's socket is not reachable: " + e, null);
    }
  }

  /** The bytes of {@code socket}; one that never knows for an SSL or unconnected socket. */
  static ServerBytes of(Socket socket) {
    return of(socket, null);
  }

  private static ServerBytes of(Socket socket, @Nullable PGStream stream) {
    if (socket instanceof SSLSocket) {
      return new ServerBytes("an SSL socket counts only decrypted bytes", stream);
    }
    try {
      return new ServerBytes(socket.getInputStream(), stream);
    } catch (IOException e) {
      return new ServerBytes("the socket has no input: " + e, stream);
    }
  }

  /** Whether the socket is known; if not, {@link #none()} is always false. */
  boolean known() {
    return socket != null;
  }

  /** Why the socket is not known; empty if it is. */
  String unknownWhy() {
    return unknownWhy;
  }

  /**
   * True if no unread byte waits in the socket now; false if some do or it cannot tell. The driver
   * may still hold whole transactions it read ahead into its buffer: they then go into the next
   * batch, which begins at once with them (they are read without waiting).
   */
  boolean none() {
    if (socket == null) {
      return false;
    }
    try {
      return socket.available() == 0;
    } catch (IOException e) {
      return false; // the stream's next read reports the failure
    }
  }

  /** Whether {@link #pending()} can tell: the driver's protocol stream was reachable. */
  boolean watchable() {
    return stream != null;
  }

  /**
   * Whether the server sent something the driver has not handed over yet, without consuming it:
   * pgjdbc's own look ({@code PGStream.hasMessagePending()}), which sees bytes behind TLS too, but
   * there waits up to 1 ms for them and looks at the socket at most once a second. False if not
   * {@link #watchable()}; true if the socket failed (the stream's next read reports it). Only
   * between two reads of the stream, on the reader's thread.
   */
  boolean pending() {
    if (stream == null) {
      return false;
    }
    try {
      return stream.hasMessagePending();
    } catch (IOException e) {
      return true;
    }
  }
}
