package dev.txoutbox.wal;

import dev.txoutbox.RelayConfig;
import dev.txoutbox.spi.OutboxMessage;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batches of one stream ({@link WalStreamReader}). Each is claimed, published and recorded on a
 * thread of its own while the reader decodes the next, so that the database's work on a batch
 * overlaps the reader's on the stream. Up to {@link #concurrentBatches} are out at a time (one in
 * the per-aggregate orderings, so that each batch's claim sees the outcomes of every batch before
 * it); positions are confirmed in commit order, a batch's only once it and every batch before it
 * are recorded. Only the reader touches the stream: while it waits for a batch it tells the server
 * every half status interval that the relay is alive.
 */
final class WalBatches implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.wal");

  /** A batch handed over: its outcome, and its position and oldest commit time. */
  private record Out(CompletableFuture<Void> done, long lsn, long oldest) {}

  private final WalStreamReader streamReader;
  private final RelayConfig config;
  private final WalBatchStep batchStep;
  private final Duration statusInterval;
  private final int concurrentBatches;
  private final AtomicLong confirmedLsn;
  private final PGReplicationStream stream;
  private final Thread reader = Thread.currentThread();
  private final ExecutorService threads;
  private final ArrayDeque<Out> out = new ArrayDeque<>();
  private boolean interrupted; // the reader, while it waited for a batch: a close's last resort

  WalBatches(WalStreamReader reader, PGReplicationStream stream) {
    this.streamReader = reader;
    this.config = reader.config;
    this.batchStep = reader.batchStep;
    this.statusInterval = reader.statusInterval;
    this.concurrentBatches = reader.concurrentBatches;
    this.confirmedLsn = reader.confirmedLsn;
    this.stream = stream;
    this.threads =
        Executors.newFixedThreadPool(
            concurrentBatches,
            new ThreadFactory() {
              private final ThreadFactory made = reader.relay.threads.factory("batch");

              @Override
              public Thread newThread(Runnable r) {
                Thread t = made.newThread(r);
                streamReader.batchThreads.add(t);
                return t;
              }
            });
  }

  /** Whether every batch handed over is recorded and its position confirmed. */
  boolean idle() {
    return out.isEmpty();
  }

  /** Whether a batch handed over now would start at once. */
  boolean room() {
    return out.size() < concurrentBatches;
  }

  /** Confirms the batches out that are finished, in order; throws what one failed with. */
  void confirmIfDone() throws SQLException, InterruptedException {
    while (!out.isEmpty() && out.peekFirst().done().isDone()) {
      confirmFirst();
    }
  }

  /**
   * Hands over {@code events} (copied), whose last commit ends at {@code lsn}, once there is room;
   * with no events, its position is confirmed after those of the batches out.
   */
  void submit(List<OutboxMessage> events, Map<UUID, Integer> xids, long lsn)
      throws SQLException, InterruptedException {
    while (!room()) {
      awaitFirst();
    }
    long oldest = streamReader.readOldest;
    streamReader.readOldest = WalRelay.NO_COMMIT;
    if (events.isEmpty()) {
      out.addLast(new Out(CompletableFuture.completedFuture(null), lsn, oldest));
      confirmIfDone();
      return;
    }
    List<OutboxMessage> batch = List.copyOf(events);
    Map<UUID, Integer> batchXids = Map.copyOf(xids);
    CompletableFuture<Void> done = new CompletableFuture<>();
    threads.execute(
        () -> {
          try {
            for (int from = 0; from < batch.size(); from += config.batchSize()) {
              int to = Math.min(batch.size(), from + config.batchSize());
              batchStep.processHolding(batch.subList(from, to), batchXids);
            }
            done.complete(null);
          } catch (Throwable e) { // thrown on by the reader
            done.completeExceptionally(e);
          } finally {
            LockSupport.unpark(reader); // after the completion, which the reader looks at
          }
        });
    if (out.isEmpty()) {
      streamReader.processingOldest = oldest;
    }
    out.addLast(new Out(done, lsn, oldest));
  }

  /** Waits for every batch out and confirms their positions; throws what one failed with. */
  void await() throws SQLException, InterruptedException {
    while (!out.isEmpty()) {
      awaitFirst();
    }
  }

  /** Waits for the first batch out and confirms its position; throws what it failed with. */
  private void awaitFirst() throws SQLException, InterruptedException {
    CompletableFuture<Void> f = out.peekFirst().done();
    long half = Math.max(1, statusInterval.toNanos() / 2);
    long alive = System.nanoTime() + half;
    while (!f.isDone()) {
      LockSupport.parkNanos(this, Math.max(1, alive - System.nanoTime()));
      if (Thread.interrupted()) {
        interrupted = true;
        throw new InterruptedException("interrupted while a batch was processed");
      }
      if (System.nanoTime() - alive >= 0) {
        stream.forceUpdateStatus();
        alive = System.nanoTime() + half;
      }
    }
    confirmFirst();
  }

  private void confirmFirst() throws SQLException, InterruptedException {
    Out first = out.removeFirst();
    try {
      first.done().get();
    } catch (ExecutionException e) { // thrown on as the reader would have thrown it
      Throwable cause = e.getCause();
      if (cause instanceof SQLException sql) {
        throw sql;
      } else if (cause instanceof InterruptedException interrupted) {
        throw interrupted;
      } else if (cause instanceof RuntimeException runtime) {
        throw runtime;
      } else if (cause instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(cause);
    }
    LogSequenceNumber position = LogSequenceNumber.valueOf(first.lsn());
    stream.setAppliedLSN(position);
    stream.setFlushedLSN(position);
    stream.forceUpdateStatus();
    confirmedLsn.set(first.lsn());
    Out next = out.peekFirst();
    streamReader.processingOldest = next == null ? WalRelay.NO_COMMIT : next.oldest();
  }

  /**
   * Lets the batches still out finish (the stream failed: what they record is not confirmed, and
   * their events come again, to be skipped as recorded) and waits for the threads to end, so that
   * the next stream's batches never run beside them. If the reader is interrupted, which only a
   * close past its timeout does, it interrupts them instead: their transactions roll back and their
   * events come again.
   */
  @Override
  public void close() {
    if (interrupted) {
      threads.shutdownNow();
      Thread.currentThread().interrupt(); // as the reader found it
    } else {
      threads.shutdown();
      if (!out.isEmpty() && streamReader.relay.running()) {
        log.info(
            "WAL relay {}: the stream ended with {} batch(es) out; reading again once they are"
                + " recorded",
            config.name(),
            out.size());
      }
      try {
        while (!threads.awaitTermination(1, TimeUnit.SECONDS)) {
          log.debug("WAL relay {}: waiting for the batch threads to end", config.name());
        }
      } catch (InterruptedException e) {
        threads.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    streamReader.batchThreads.clear();
    streamReader.processingOldest = WalRelay.NO_COMMIT;
  }
}
