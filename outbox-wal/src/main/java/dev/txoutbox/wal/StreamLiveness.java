package dev.txoutbox.wal;

import dev.txoutbox.spi.DurationText;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.postgresql.Driver;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the server of one replication stream still answers, so that a primary gone silent (its
 * host or the path to it lost: nothing answers, nothing refuses) is given up within a bound. pgjdbc
 * reads the stream without a timeout ({@code readPending()} looks at the socket for 1 ms and
 * bypasses {@code socketTimeout}) and status updates are writes, which the kernel takes into the
 * socket's send buffer: without this the relay would read nothing until the kernel's TCP timeout
 * (about 15 minutes on Linux).
 *
 * <p>As PostgreSQL's own walreceiver does, on the reader's thread between two reads:
 *
 * <ol>
 *   <li>after {@link #quiet} (one status interval, 10 s by default) without a message, the reader
 *       asks the server for an answer ({@code forceUpdateStatus()}, a status update with its
 *       reply-requested flag set, which the walsender answers at once with a keepalive);
 *   <li>it waits up to {@link #replyWait} (one status interval) for anything from the server,
 *       without reading the stream ({@link ServerBytes#pending()}), and goes on reading as soon as
 *       something comes;
 *   <li>with no answer by then, it asks the server on a short-lived ordinary connection to the
 *       replication URL (connect, login and socket timeouts of {@link #checkTimeout}, half a status
 *       interval and at least 1 s, unless the URL sets its own) whether the slot's {@code
 *       active_pid} is still this stream's server process. If so (a walsender busy decoding a large
 *       transaction answers late), the stream is kept. If the server cannot be reached, or the slot
 *       is read by another process, by none, or is missing, the stream's connection is aborted (its
 *       socket closed, nothing waited for) and {@link #check} throws an {@link SQLException} of
 *       SQLState 08006, which the reader's reconnect path logs and retries with its backoff.
 * </ol>
 *
 * A silent stream is thus given up at most three status intervals (30 s by default) after its last
 * message. A stream whose server process lives but whose connection broke one way is kept until the
 * server's {@code wal_sender_timeout} (60 s by default) ends that process. An idle healthy stream
 * costs a status update and a keepalive per status interval, and no connection.
 *
 * <p>One per stream; the reader's thread only.
 */
final class StreamLiveness {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  private final String relayName;
  private final String slotName;
  private final String url;
  private final Properties checkProperties;
  private final Connection replication;
  private final PGReplicationStream stream;
  private final ServerBytes server;
  private final BooleanSupplier running;
  private final long quiet;
  private final long replyWait;
  private long lastHeard = System.nanoTime();
  private long lastLsn;

  /** What {@link #check} found, when it did not give the stream up. */
  enum Verdict {
    /**
     * Something came within {@link StreamLiveness#quiet}, or the relay is closing: nothing asked.
     */
    HEARD,
    /** The server answered the status request. */
    ANSWERED,
    /** No answer, but the check connection found this stream's process reading the slot. */
    READS_THE_SLOT
  }

  /**
   * Watches {@code stream} of slot {@code slotName}, opened on {@code replication} to {@code url}
   * with {@code properties}, by {@code statusInterval}, while {@code running}.
   */
  StreamLiveness(
      String relayName,
      String slotName,
      String url,
      Properties properties,
      Duration statusInterval,
      BooleanSupplier running,
      Connection replication,
      PGReplicationStream stream,
      ServerBytes server) {
    this.relayName = relayName;
    this.slotName = slotName;
    this.url = url;
    this.checkProperties = checkProperties(properties, statusInterval);
    this.replication = replication;
    this.stream = stream;
    this.server = server;
    this.running = running;
    this.quiet = quiet(statusInterval).toNanos();
    this.replyWait = replyWait(statusInterval).toNanos();
    this.lastLsn = stream.getLastReceiveLSN().asLong();
  }

  /** How long the stream may send nothing before the reader asks the server for an answer. */
  static Duration quiet(Duration statusInterval) {
    return statusInterval;
  }

  /** How long the reader waits for the server's answer before it checks on a connection. */
  static Duration replyWait(Duration statusInterval) {
    return statusInterval;
  }

  /**
   * The connect, login and socket timeouts of the check connection, and the socket timeout of the
   * replication connection's login when its URL sets none: half the status interval, at least 1 s
   * (pgjdbc counts them in whole seconds).
   */
  static Duration checkTimeout(Duration statusInterval) {
    return Duration.ofSeconds(Math.max(1, statusInterval.dividedBy(2).toSeconds()));
  }

  /** A message came from the stream. */
  void heard() {
    lastHeard = System.nanoTime();
  }

  /**
   * The stream had nothing to read: after {@link #quiet} without a message, asks the server for an
   * answer and, if none comes, checks the slot's reader on a connection of its own.
   *
   * @return what it found
   * @throws SQLException of SQLState 08006 once the stream is given up (its connection aborted)
   */
  Verdict check() throws SQLException {
    long now = System.nanoTime();
    long lsn = stream.getLastReceiveLSN().asLong();
    if (lsn != lastLsn) { // a keepalive with a new position, read by the driver
      lastLsn = lsn;
      lastHeard = now;
      return Verdict.HEARD;
    }
    if (now - lastHeard < quiet) {
      return Verdict.HEARD;
    }
    long asked = System.nanoTime();
    stream.forceUpdateStatus(); // asks for an answer
    if (server.watchable()) {
      while (System.nanoTime() - asked < replyWait) {
        if (!running.getAsBoolean()) {
          return Verdict.HEARD;
        }
        if (server.pending()) {
          lastHeard = System.nanoTime();
          return Verdict.ANSWERED;
        }
        LockSupport.parkNanos(this, WalRelay.IDLE_NANOS); // close() unparks the reader
      }
    }
    Duration silent = Duration.ofNanos(System.nanoTime() - lastHeard);
    String gone = slotReaderGone();
    if (gone == null) {
      log.debug(
          "WAL relay {}: the replication stream sent nothing for {} and gave no answer{}, but its"
              + " server process still reads slot {}: kept",
          relayName,
          DurationText.of(silent),
          server.watchable() ? "" : " that the relay can see",
          slotName);
      lastHeard = System.nanoTime();
      return Verdict.READS_THE_SLOT;
    }
    try {
      replication.abort(Runnable::run); // closes the socket: no Terminate written, none waited for
    } catch (SQLException | RuntimeException e) {
      log.debug("aborting the replication connection failed: {}", e.toString());
    }
    throw new SQLException(
        "the replication stream of slot "
            + slotName
            + " sent nothing for "
            + DurationText.of(silent)
            + " and no answer to a status request within "
            + DurationText.of(Duration.ofNanos(replyWait))
            + ", and "
            + gone
            + ": the connection is dropped and opened again",
        "08006");
  }

  /**
   * Null if this stream's server process still reads the slot, asked on a connection of its own;
   * otherwise why the stream is gone.
   */
  private @Nullable String slotReaderGone() {
    int pid;
    try {
      pid = replication.unwrap(PGConnection.class).getBackendPID();
    } catch (SQLException e) {
      return "its server process is not known (" + e.getMessage() + ")";
    }
    try (Connection c = DriverManager.getConnection(url, checkProperties);
        PreparedStatement s =
            c.prepareStatement(
                "SELECT active_pid FROM pg_catalog.pg_replication_slots WHERE slot_name = ?")) {
      s.setString(1, slotName);
      try (ResultSet r = s.executeQuery()) {
        if (!r.next()) {
          return "slot " + slotName + " is missing on the server the replication URL reaches now";
        }
        int active = r.getInt(1);
        if (r.wasNull()) {
          return "no process reads slot " + slotName + " (this stream's, " + pid + ", is gone)";
        }
        return active == pid
            ? null
            : "process " + active + " reads slot " + slotName + ", not this stream's " + pid;
      }
    } catch (SQLException e) {
      return "the server could not be reached to check the slot: " + WalRelay.safe(e.getMessage());
    }
  }

  /**
   * The check connection's properties: the replication connection's, as an ordinary connection,
   * with {@link #checkTimeout} for the connect, the login and each read unless set already.
   */
  private static Properties checkProperties(Properties replication, Duration statusInterval) {
    Properties p = new Properties();
    p.putAll(replication);
    p.remove(PGProperty.REPLICATION.getName());
    String seconds = Long.toString(checkTimeout(statusInterval).toSeconds());
    for (PGProperty timeout :
        new PGProperty[] {
          PGProperty.CONNECT_TIMEOUT, PGProperty.LOGIN_TIMEOUT, PGProperty.SOCKET_TIMEOUT
        }) {
      if (!p.containsKey(timeout.getName())) {
        p.setProperty(timeout.getName(), seconds);
      }
    }
    return p;
  }

  /**
   * Whether {@code url} or {@code properties} set pgjdbc's {@code socketTimeout} (the URL's values
   * win over the properties' in pgjdbc).
   */
  static boolean setsSocketTimeout(String url, Properties properties) {
    Properties parsed = Driver.parseURL(url, properties);
    return parsed != null && parsed.getProperty(PGProperty.SOCKET_TIMEOUT.getName()) != null;
  }
}
