package dev.txoutbox.internal.relay;

import dev.txoutbox.Backoff;
import dev.txoutbox.spi.DurationText;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one connection that LISTENs on the outbox's NOTIFY channel and wakes the relay on every
 * notification. After a lost connection it reconnects with backoff and wakes the relay once, so
 * events written while it was away are found; the relay's own polling covers the gap meanwhile.
 */
final class NotificationListener {

  private static final Logger log = LoggerFactory.getLogger("dev.txoutbox.relay");

  /** How long one wait for notifications lasts; bounds the reaction to close(). */
  static final Duration WAIT = Duration.ofMillis(500);

  /** How often an idle listening connection is checked, so a silently dead one is replaced. */
  static final Duration HEALTH_CHECK = Duration.ofSeconds(10);

  /** The wait before each reconnection: 100 ms doubling to 10 s, with jitter. */
  static final Backoff RECONNECT_BACKOFF =
      Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(10));

  private final DataSource dataSource;
  private final String channel;
  private final Runnable wakeUp;
  private final Thread thread;
  private final CountDownLatch stop = new CountDownLatch(1);

  NotificationListener(
      DataSource dataSource, String channel, Runnable wakeUp, RelayThreads threads) {
    this.dataSource = dataSource;
    this.channel = channel;
    this.wakeUp = wakeUp;
    this.thread = threads.newThread("listener", this::run);
  }

  void start() {
    thread.start();
  }

  void close() {
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
    BackoffSteps reconnect = new BackoffSteps(RECONNECT_BACKOFF, ThreadLocalRandom.current());
    while (!stopping()) {
      try (Connection connection = dataSource.getConnection()) {
        listen(connection);
        reconnect.reset();
        log.debug("listening on channel {}", channel);
        wakeUp.run(); // events may have arrived while we were not listening
        receive(connection.unwrap(PGConnection.class), connection);
      } catch (SQLException | RuntimeException e) {
        if (stopping()) {
          return;
        }
        Duration delay = reconnect.next();
        log.warn(
            "LISTEN {} failed, reconnecting in {} (the relay keeps polling): {}",
            channel,
            DurationText.of(delay),
            e.toString());
        try {
          if (stop.await(delay.toMillis(), TimeUnit.MILLISECONDS)) {
            return;
          }
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void listen(Connection connection) throws SQLException {
    connection.setAutoCommit(true);
    try (Statement statement = connection.createStatement()) {
      // LISTEN is a PostgreSQL utility command that jOOQ does not model. The channel name is
      // built from a validated schema name, and quoted.
      statement.execute("LISTEN \"" + channel + "\"");
    }
  }

  private void receive(PGConnection pg, Connection connection) throws SQLException {
    long nextCheck = System.nanoTime() + HEALTH_CHECK.toNanos();
    while (!stopping()) {
      PGNotification[] notifications = pg.getNotifications((int) WAIT.toMillis());
      if (notifications != null && notifications.length > 0) {
        wakeUp.run();
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
