package dev.txoutbox.fleet.internal;

import dev.txoutbox.spi.SecretMasking;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection to the control database that LISTENs on the registry's change channel and
 * calls {@code changed} for every notification about its control schema (the registry announces
 * {@code <schema>.<outbox>} at each commit), on a thread of its own ({@code
 * txoutbox-fleet-<node>-changes}). After a lost connection it reconnects with backoff (100 ms
 * doubling to 10 s) and calls {@code changed} once it listens again, since a change may have been
 * committed meanwhile; the node's periodic scan covers the gap. Thread-safe.
 */
public final class ChangeListener {

  private static final Logger log = LoggerFactory.getLogger(ChangeListener.class);

  /** How long one wait for notifications lasts; bounds the reaction to {@link #close()}. */
  static final Duration WAIT = Duration.ofMillis(500);

  /** How often an idle listening connection is checked, so a silently dead one is replaced. */
  static final Duration HEALTH_CHECK = Duration.ofSeconds(10);

  static final Duration FIRST_RETRY = Duration.ofMillis(100);
  static final Duration LAST_RETRY = Duration.ofSeconds(10);

  private final DataSource dataSource;
  private final String channel;
  private final String payloadPrefix;
  private final String node;
  private final Runnable changed;
  private final Thread thread;
  private final CountDownLatch stop = new CountDownLatch(1);

  /**
   * @param channel the channel, a plain lower-case identifier
   * @param schema the control schema whose changes count
   */
  public ChangeListener(
      DataSource dataSource, String channel, String schema, String node, Runnable changed) {
    this.dataSource = dataSource;
    this.channel = channel;
    this.payloadPrefix = schema + ".";
    this.node = node;
    this.changed = changed;
    this.thread = new Thread(this::run, "txoutbox-fleet-" + node + "-changes");
    this.thread.setDaemon(true);
  }

  /** Starts listening. */
  public void start() {
    thread.start();
  }

  /** Stops listening and closes the connection; waits up to 2 s for the thread. */
  public void close() {
    stop.countDown();
    try {
      thread.join(WAIT.toMillis() * 4);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private boolean stopping() {
    return stop.getCount() == 0;
  }

  private void run() {
    Duration retry = FIRST_RETRY;
    boolean warned = false;
    while (!stopping()) {
      try (Connection connection = dataSource.getConnection()) {
        connection.setAutoCommit(true);
        try (Statement s = connection.createStatement()) {
          s.execute("LISTEN " + channel);
        }
        retry = FIRST_RETRY;
        if (warned) {
          log.info("fleet node {} listens for registry changes again", node);
          warned = false;
        }
        changed.run(); // a change may have been committed while nobody listened
        receive(connection);
      } catch (SQLException | RuntimeException e) {
        if (stopping()) {
          return;
        }
        if (!warned) {
          log.warn(
              "fleet node {} cannot LISTEN for registry changes, retrying (the registry is still"
                  + " scanned on schedule): {}",
              node,
              SecretMasking.maskText(String.valueOf(e.getMessage())));
          warned = true;
        }
        try {
          if (stop.await(retry.toMillis(), TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
        Duration doubled = retry.multipliedBy(2);
        retry = doubled.compareTo(LAST_RETRY) > 0 ? LAST_RETRY : doubled;
      }
    }
  }

  private void receive(Connection connection) throws SQLException {
    PGConnection pg = connection.unwrap(PGConnection.class);
    long nextCheck = System.nanoTime() + HEALTH_CHECK.toNanos();
    while (!stopping()) {
      PGNotification[] notifications = pg.getNotifications((int) WAIT.toMillis());
      if (notifications != null) {
        for (PGNotification n : notifications) {
          if (n.getParameter().startsWith(payloadPrefix)) {
            changed.run();
            break;
          }
        }
      }
      if (System.nanoTime() - nextCheck > 0) {
        if (!connection.isValid((int) HEALTH_CHECK.toSeconds())) {
          throw new SQLException("the listening connection is no longer valid");
        }
        nextCheck = System.nanoTime() + HEALTH_CHECK.toNanos();
      }
    }
  }
}
