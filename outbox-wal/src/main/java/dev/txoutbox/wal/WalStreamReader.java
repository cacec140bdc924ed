package dev.txoutbox.wal;

import dev.txoutbox.Backoff;
import dev.txoutbox.Ordering;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.internal.kernel.RelayKernel;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.SecretMasking;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The WAL relay's stream reader, run on the relay's thread: opens the replication stream, collects
 * the events of committed transactions into batches, hands each to the per-batch step ({@link
 * WalBatchStep}) on the stream's batch threads, confirms positions in commit order, and reopens a
 * stream that failed after the reconnect backoff (moving the slot past a transaction it cannot
 * read). The relay's settings and counters are its relay's; the stream's state is its own.
 */
final class WalStreamReader {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  private static final long NO_COMMIT = WalRelay.NO_COMMIT;
  private static final long IDLE_NANOS = WalRelay.IDLE_NANOS;
  private static final long WAITED_NANOS = WalRelay.WAITED_NANOS;
  private static final Duration MAX_RECONNECT_DELAY = WalRelay.MAX_RECONNECT_DELAY;

  final WalRelay relay;
  private final DSLContext dsl;
  private final String replicationUrl;
  private final Properties replicationProperties;

  /**
   * {@link #replicationProperties} with a socket timeout for the login ({@link
   * StreamLiveness#checkTimeout}) when the replication URL sets none, so that opening a stream on a
   * silent primary gives up; {@link #endLoginBound} lifts it once the stream is open.
   */
  private final Properties openProperties;

  /** Whether {@link #openProperties} set the socket timeout, lifted once the stream is open. */
  private final boolean loginBound;

  private final OutboxTables tables;
  final RelayConfig config;
  private final String slotName;
  private final String publicationName;
  private final boolean createIfMissing;
  private final RelayKernel kernel;
  private final RelayListener listener;
  private final Backoff reconnectBackoff;
  final Duration statusInterval;
  private final long minBatchNanos;
  final int concurrentBatches;
  final AtomicLong confirmedLsn;
  private final AtomicLong skippedCount;
  private final AtomicLong reconnects;
  private final AtomicLong skippedTransactions;
  final WalBatchStep batchStep;
  private volatile @Nullable Connection replication;

  /** The stream's failures in a row inside one transaction. The reader thread's only. */
  private final StuckTransaction stuck = new StuckTransaction();

  /**
   * The Begin of the transaction being read when reading or decoding the stream failed last, or
   * null when the stream failed elsewhere (a batch, the connection). The reader thread's only.
   */
  private PgOutput.@Nullable Begin failedIn;

  /** Whether the INFO line that the socket cannot be asked ({@link ServerBytes}) was written. */
  private boolean slowBatchEndSaid; // the reader thread's only

  /**
   * The commit time of the oldest transaction of the batch being processed, or {@link #NO_COMMIT}
   * when none is: older than any in {@link #readOldest}.
   */
  volatile long processingOldest = NO_COMMIT;

  /**
   * The commit time of the oldest transaction read into the batch the reader collects, or {@link
   * #NO_COMMIT}.
   */
  volatile long readOldest = NO_COMMIT;

  /**
   * The threads processing the current stream's batches ({@link WalBatches}), for close to wake.
   */
  final Set<Thread> batchThreads = ConcurrentHashMap.newKeySet();

  WalStreamReader(WalRelay relay) {
    this.relay = relay;
    this.dsl = relay.dsl;
    this.replicationUrl = relay.replicationUrl;
    this.replicationProperties = relay.replicationProperties;
    this.tables = relay.tables;
    this.config = relay.config;
    this.slotName = relay.slotName;
    this.publicationName = relay.publicationName;
    this.createIfMissing = relay.createIfMissing;
    this.kernel = relay.kernel;
    this.listener = relay.listener;
    this.reconnectBackoff = relay.reconnectBackoff;
    this.statusInterval = relay.statusInterval;
    this.minBatchNanos = relay.minBatchNanos;
    this.concurrentBatches = relay.concurrentBatches;
    this.confirmedLsn = relay.confirmedLsn;
    this.skippedCount = relay.skippedCount;
    this.reconnects = relay.reconnects;
    this.skippedTransactions = relay.skippedTransactions;
    this.batchStep = relay.batchStep;
    this.loginBound = !StreamLiveness.setsSocketTimeout(replicationUrl, replicationProperties);
    Properties open = new Properties();
    open.putAll(replicationProperties);
    if (loginBound) {
      open.setProperty(
          PGProperty.SOCKET_TIMEOUT.getName(),
          Long.toString(StreamLiveness.checkTimeout(statusInterval).toSeconds()));
    }
    this.openProperties = open;
  }

  /**
   * The commit time of the oldest transaction read but not confirmed (being processed, or read into
   * the batch being collected), or {@link WalRelay#NO_COMMIT}.
   */
  long oldestUnconfirmed() {
    long oldest = processingOldest;
    return oldest == NO_COMMIT ? readOldest : oldest;
  }

  /** The threads processing the current stream's batches, for close to wake. */
  Set<Thread> batchThreads() {
    return batchThreads;
  }

  void run() {
    boolean first = true;
    int failures = 0; // of the series of streams that did not work, for the backoff
    while (relay.running()) {
      long confirmedBefore = confirmedLsn.get();
      long openedAt = System.nanoTime();
      failedIn = null;
      Throwable failure;
      try {
        if (!first) {
          reconnects.incrementAndGet();
          if (WalSetup.ensureSlot(dsl, slotName, createIfMissing)) {
            log.warn(
                "WAL relay {}: slot {} was missing and is created anew; events committed while it"
                    + " was missing are left to the polling relay",
                config.name(),
                slotName);
          }
        }
        first = false;
        stream();
        continue; // returns only once closed
      } catch (VirtualMachineError e) {
        log.error("WAL relay {}: stopping on {}", config.name(), e.toString(), e);
        listener.cycleFailed(e);
        break;
      } catch (Throwable e) { // a loop that must not die: catch everything else, reconnect
        failure = e;
      } finally {
        closeReplication();
      }
      if (!relay.running()) {
        break;
      }
      Thread.interrupted(); // an interrupt while running is not a close: it only ends the stream
      boolean worked =
          confirmedLsn.get() != confirmedBefore
              || System.nanoTime() - openedAt >= MAX_RECONNECT_DELAY.toNanos();
      failures = worked ? 1 : failures + 1;
      Duration delay = reconnectBackoff.delayAfter(failures, ThreadLocalRandom.current());
      Throwable e = failure;
      // One WARN as a database outage begins, DEBUG while it lasts, one INFO once a stream
      // opens again: the polling relay's words for its cycles ({@link RelayKernel#runFailed}).
      kernel.runFailed(e, delay, "stream");
      log.debug(
          "WAL relay {}: stream failed ({} in a row), reconnecting after {}",
          config.name(),
          failures,
          DurationText.of(delay));
      PgOutput.Begin in = failedIn;
      if (stuck.failedIn(in) && in != null) {
        skip(in, e);
      }
      LockSupport.parkNanos(this, delay.toNanos()); // close() unparks
    }
  }

  /**
   * Moves the slot past the transaction that {@code in} began, which the stream failed {@link
   * StuckTransaction#SKIP_AFTER} times in a row to read, the last time with {@code error}: its
   * events stay pending, for the polling relay. Says so at WARN, counts it and records it for
   * {@code wal-slot show}; a move that fails is tried again after the next failure.
   */
  private void skip(PgOutput.Begin in, Throwable error) {
    String reason = String.valueOf(error.getMessage());
    WalSkips.Move move;
    try (Connection c = openReplication()) {
      endLoginBound(c); // moving the slot may take long
      move = WalSkips.advance(c, slotName, in, () -> relay.running());
    } catch (SQLException | RuntimeException e) {
      log.warn(
          "WAL relay {}: the stream failed {} times in a row in transaction {}, but moving slot {}"
              + " past it failed; trying again after the next failure: {}",
          config.name(),
          stuck.inARow(),
          Integer.toUnsignedLong(in.xid()),
          slotName,
          WalRelay.safe(e.getMessage()));
      return;
    }
    stuck.reset();
    skippedTransactions.incrementAndGet();
    confirmedLsn.set(move.toLsn());
    log.warn(
        "WAL relay {}: slot {} moved past transaction {} (commit at {}; confirmed position {} to"
            + " {}) after the stream failed {} times in a row reading it; its events stay pending"
            + " for the polling relay, which publishes them or dead-letters those it cannot read"
            + " either. The server's error: {}",
        config.name(),
        slotName,
        move.xid(),
        WalSkips.lsn(move.commitLsn()),
        WalSkips.lsn(move.fromLsn()),
        WalSkips.lsn(move.toLsn()),
        StuckTransaction.SKIP_AFTER,
        WalRelay.safe(reason));
    try {
      WalSkips.record(dsl, tables, slotName, move, reason);
    } catch (RuntimeException e) {
      log.warn(
          "WAL relay {}: the move past transaction {} could not be recorded for wal-slot show: {}",
          config.name(),
          move.xid(),
          WalRelay.safe(e.getMessage()));
    }
  }

  /**
   * A replication connection. A pooler (PgBouncer) in front of the server refuses the startup
   * packet's {@code replication} parameter with a protocol error that names neither: the error says
   * so, and that the replication URL must reach PostgreSQL directly.
   */
  private Connection openReplication() throws SQLException {
    try {
      return DriverManager.getConnection(replicationUrl, openProperties);
    } catch (SQLException e) {
      String text = String.valueOf(e.getMessage());
      if ("08P01".equals(e.getSQLState()) && text.contains("unsupported startup parameter")) {
        throw new SQLException(
            "the replication connection to "
                + SecretMasking.maskUri(replicationUrl)
                + " must reach PostgreSQL directly, not through PgBouncer or another pooler,"
                + " which refuses replication connections: "
                + text,
            e.getSQLState(),
            e);
      }
      throw e;
    }
  }

  /**
   * Lifts the login's socket timeout from {@code c} (if the relay set it): the stream is read
   * without blocking and {@link StreamLiveness} bounds its silence; a socket timeout would cut a
   * statement on the connection, or a message that arrives in parts.
   */
  private void endLoginBound(Connection c) throws SQLException {
    if (loginBound) {
      c.setNetworkTimeout(Runnable::run, 0);
    }
  }

  private void stream() throws SQLException, InterruptedException {
    Connection c = openReplication();
    replication = c;
    if (!relay.running()) {
      return;
    }
    PGReplicationStream stream =
        c.unwrap(PGConnection.class)
            .getReplicationAPI()
            .replicationStream()
            .logical()
            .withSlotName(slotName)
            .withSlotOption("proto_version", "1")
            .withSlotOption("publication_names", publicationName)
            .withStatusInterval((int) statusInterval.toMillis(), TimeUnit.MILLISECONDS)
            // The driver would move the flushed position to a keepalive's by itself; the relay
            // does it (confirmQuiet), under its own conditions, whatever the driver version.
            .withAutomaticFlush(false)
            .start();
    endLoginBound(c);
    kernel.runSucceeded(); // the database answers again, if it did not
    OutboxInserts inserts = new OutboxInserts(tables);
    List<OutboxMessage> batch = new ArrayList<>();
    // In the per-aggregate orderings, the transaction of each event of the batch, by event id.
    Map<UUID, Integer> xids = new HashMap<>();
    long confirm = -1;
    processingOldest = NO_COMMIT;
    readOldest = NO_COMMIT;
    long quietConfirmed = System.nanoTime();
    // A batch is published once it is full, or once a Commit is read, the socket holds nothing
    // more and the previous batch was published at least the minimum batch interval ago (or the
    // stream has nothing once that interval has passed): asking the stream instead waits up to 1
    // ms in the driver (ServerBytes). Where the socket cannot be asked, a transaction that began
    // once the stream had nothing more is published at its Commit; otherwise the batch waits for
    // the stream to say it has nothing.
    // Where a batch ends does not matter to the per-aggregate orderings: an event they leave
    // invisible holds back its aggregate in later batches too (heldBack).
    boolean ordered = config.ordering() != Ordering.NONE;
    ServerBytes server = ServerBytes.of(c);
    if (!server.known() && !slowBatchEndSaid) {
      slowBatchEndSaid = true;
      log.info(
          "WAL relay {}: a batch read while events keep coming ends after the driver's 1 ms wait"
              + " for more: {}",
          config.name(),
          WalRelay.safe(server.unknownWhy()));
    }
    StreamLiveness liveness =
        new StreamLiveness(
            config.name(),
            slotName,
            replicationUrl,
            replicationProperties,
            statusInterval,
            relay::running,
            c,
            stream,
            server);
    boolean caughtUp = false;
    long flushed = System.nanoTime() - minBatchNanos; // when the last batch was handed over
    try (WalBatches batches = new WalBatches(this, stream)) {
      while (relay.running()) {
        batches.confirmIfDone();
        long reading = System.nanoTime();
        ByteBuffer buffer = read(stream, inserts);
        if (buffer == null) {
          liveness.check(); // throws once a silent stream is given up
          if (confirm >= 0
              && batches.room()
              && (batch.isEmpty() || reading - flushed >= minBatchNanos)) {
            batches.submit(batch, xids, confirm);
            if (!batch.isEmpty()) {
              flushed = System.nanoTime();
            }
            batch.clear();
            xids.clear();
            confirm = -1;
          } else if (confirm >= 0) {
            if (System.nanoTime() - reading < WAITED_NANOS) {
              long interval = batches.room() ? minBatchNanos - (reading - flushed) : IDLE_NANOS;
              LockSupport.parkNanos(Math.min(IDLE_NANOS, interval)); // a finished batch unparks
            }
          } else {
            if (!inserts.inTransaction()) {
              caughtUp = true;
              if (batches.idle()
                  && System.nanoTime() - quietConfirmed >= statusInterval.toNanos()) {
                quietConfirmed = System.nanoTime();
                confirmQuiet(stream);
              }
            }
            if (System.nanoTime() - reading < WAITED_NANOS) {
              LockSupport.parkNanos(IDLE_NANOS);
            }
          }
          continue;
        }
        liveness.heard();
        OutboxInserts.Transaction t = decode(buffer, inserts);
        if (t != null) {
          if (confirm < 0) {
            readOldest = t.commitMicros();
          }
          batch.addAll(t.events());
          if (ordered) {
            for (OutboxMessage m : t.events()) {
              xids.put(m.id(), t.xid());
            }
          }
          skippedCount.addAndGet(t.delayed() + t.unreadable().size());
          for (OutboxInserts.Unreadable u : t.unreadable()) {
            log.warn(
                "WAL relay {}: event {} cannot be read from the stream ({}); it is left to the"
                    + " polling relay, which dead-letters a row it cannot read either",
                config.name(),
                u.id() == null ? "(id not in the stream)" : u.id(),
                WalRelay.safe(u.reason()));
          }
          confirm = t.endLsn();
          if (batch.size() >= config.batchSize()
              || (!batch.isEmpty()
                  && batches.room()
                  && (caughtUp || server.none())
                  && System.nanoTime() - flushed >= minBatchNanos)) {
            batches.submit(batch, xids, confirm);
            flushed = System.nanoTime();
            batch.clear();
            xids.clear();
            confirm = -1;
          }
          if (!t.events().isEmpty()) {
            caughtUp = false; // a transaction without outbox events (PostgreSQL 14) changes nothing
          }
        }
      }
      batches.await(); // the batch in progress when the relay was closed
      if (batch.isEmpty() && !inserts.inTransaction() && read(stream, inserts) == null) {
        // A clean stop with every event read recorded, and nothing more from the server (the
        // look lets the driver take in a keepalive already sent): confirm the server's position,
        // past WAL that is not the outbox's (the relay's own marks, other tables), which would
        // otherwise stay held until the next start.
        confirmQuiet(stream);
        stream.forceUpdateStatus();
      }
    }
  }

  /** The stream's next message, or null; notes the transaction being read if it fails. */
  private @Nullable ByteBuffer read(PGReplicationStream stream, OutboxInserts inserts)
      throws SQLException {
    try {
      return stream.readPending();
    } catch (SQLException | RuntimeException e) {
      failedIn = inserts.open();
      throw e;
    }
  }

  /** The transaction {@code buffer} commits, or null; notes the one being read if it fails. */
  private OutboxInserts.@Nullable Transaction decode(ByteBuffer buffer, OutboxInserts inserts) {
    try {
      return inserts.accept(PgOutput.decode(buffer));
    } catch (RuntimeException e) {
      failedIn = inserts.open();
      throw e;
    }
  }

  /**
   * With nothing pending, confirms the server's position from its keepalives if it moved past the
   * confirmed one. Since PostgreSQL 15 {@code pgoutput} sends no empty transaction, so while the
   * outbox table is idle and other tables are busy no commit would ever be confirmed and the slot
   * would hold back all their WAL, until {@code max_slot_wal_keep_size} made it lost.
   *
   * <p>Safe because the caller only asks when the batch is empty (every event read is recorded and
   * its commit confirmed) and no transaction is open between a Begin and its Commit. The stream
   * delivers messages in order, so a keepalive's position ({@link
   * PGReplicationStream#getLastReceiveLSN()}, also the position of the last message read) is past
   * only what was already sent and read: every transaction that committed before it. A transaction
   * committing later has its commit after that position and is sent whole on any stream that starts
   * there, since the server decodes from the slot's restart position, which it keeps independently
   * of the confirmed one to cover transactions still running.
   */
  private void confirmQuiet(PGReplicationStream stream) {
    long server = stream.getLastReceiveLSN().asLong();
    if (Long.compareUnsigned(server, confirmedLsn.get()) <= 0) {
      return;
    }
    LogSequenceNumber position = LogSequenceNumber.valueOf(server);
    stream.setAppliedLSN(position);
    stream.setFlushedLSN(position); // sent by the driver's next status update
    confirmedLsn.set(server);
  }

  void closeReplication() {
    Connection c = replication;
    replication = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        log.debug("closing the replication connection failed: {}", e.toString());
      }
    }
  }
}
