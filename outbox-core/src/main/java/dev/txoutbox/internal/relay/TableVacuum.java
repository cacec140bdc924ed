package dev.txoutbox.internal.relay;

import java.sql.SQLWarning;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain {@code VACUUM} of the relay's events table every {@code RelayConfig.vacuumInterval()}, on
 * a thread of its own ({@code vacuum}) and a connection borrowed for each run. Autovacuum visits a
 * table at most once per naptime, so a busy outbox carries that long's completed rows as dead
 * tuples; this keeps them to one interval's worth. A role that does not own the table gets only
 * PostgreSQL's warning that it was skipped (a plain VACUUM of one named table warns of nothing
 * else, in any language the server speaks): logged once at WARN, and the runs stop. A failed run is
 * logged at WARN once until a run succeeds again (then INFO), and tried again at the next interval.
 * Thread-safe. Public for outbox-wal's facade ({@code internal.kernel.RelayKernel}): the WAL relay
 * runs the same vacuum.
 */
public final class TableVacuum implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  private final DSLContext dsl;
  private final String table;
  private final String relay;
  private final Duration interval;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread thread;
  private boolean failing;

  /** Runs {@code VACUUM table} (rendered, quoted) every {@code interval}, the first after one. */
  public TableVacuum(
      DSLContext dsl, String table, String relay, Duration interval, RelayThreads threads) {
    this.dsl = dsl;
    this.table = table;
    this.relay = relay;
    this.interval = interval;
    this.thread = threads.newThread("vacuum", this::loop);
  }

  public void start() {
    thread.start();
  }

  private void loop() {
    try {
      while (!closed.await(interval.toMillis(), TimeUnit.MILLISECONDS)) {
        if (!vacuum()) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing: this thread ends
    }
  }

  /** One run; false when the table cannot be vacuumed by this role, so that the runs stop. */
  boolean vacuum() {
    try {
      String skipped =
          dsl.connectionResult(
              c -> {
                boolean autoCommit = c.getAutoCommit();
                if (!autoCommit) {
                  c.setAutoCommit(true); // VACUUM cannot run inside a transaction block
                }
                try (Statement s = c.createStatement()) {
                  // The events table's name as jOOQ rendered and quoted it: no value of a caller.
                  s.execute("VACUUM " + table);
                  SQLWarning w = s.getWarnings();
                  return w == null ? null : String.valueOf(w.getMessage());
                } finally {
                  if (!autoCommit) {
                    c.setAutoCommit(false);
                  }
                }
              });
      if (skipped != null) {
        log.warn(
            "relay {}: PostgreSQL skipped VACUUM of {} ({}); vacuumInterval has no effect: run the"
                + " relay as the table's owner, or leave the table to autovacuum",
            relay,
            table,
            skipped);
        return false;
      }
      if (failing) {
        failing = false;
        log.info("relay {}: VACUUM of {} succeeds again", relay, table);
      }
    } catch (RuntimeException e) {
      if (closed.getCount() == 0) {
        return false; // the relay closed, and its pool with it, during this run
      }
      if (!failing) {
        failing = true;
        log.warn(
            "relay {}: VACUUM of {} failed; trying again every {}: {}",
            relay,
            table,
            interval,
            e.toString());
      }
    }
    return true;
  }

  /** Stops the runs; a run in progress finishes on its own. */
  @Override
  public void close() {
    closed.countDown();
  }
}
