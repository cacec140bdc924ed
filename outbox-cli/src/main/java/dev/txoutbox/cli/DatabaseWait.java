package dev.txoutbox.cli;

import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's wait, at start, for a database it cannot reach yet: it waits as the running relay
 * waits out an outage instead of exiting, so a relay started while PostgreSQL restarts or fails
 * over simply begins later. Its lines are the relay command's own log lines.
 */
final class DatabaseWait {

  /** Logged under the relay command's name: these lines are part of the relay's start. */
  private static final Logger log = LoggerFactory.getLogger(RelayCommand.class);

  /** The pause before the second probe; it doubles up to {@link #MAX_DELAY}. */
  static final Duration FIRST_DELAY = Duration.ofSeconds(1);

  /** The longest pause between two probes of a database that did not answer at start. */
  static final Duration MAX_DELAY = Duration.ofSeconds(30);

  private DatabaseWait() {}

  /**
   * Probes the database until it answers: a database that cannot be reached (SQLState class 08, or
   * 57P03 while it starts up) is probed again after {@link #FIRST_DELAY}, doubling to {@link
   * #MAX_DELAY}, with one WARN as the wait starts and one INFO when it answers. A refusal that
   * waiting cannot fix (wrong password, no such role or database) is thrown at once.
   *
   * @return true once the database answers, false if the relay was asked to stop first
   * @throws DatabaseUnavailableException if the database refused the relay for good
   * @throws InterruptedException if the waiting thread is interrupted, which also means stop
   */
  static boolean untilItAnswers(String relayName, DatabaseTarget target, ShutdownSignal stop)
      throws InterruptedException {
    long started = System.nanoTime();
    Duration delay = FIRST_DELAY;
    int failures = 0;
    while (true) {
      try {
        target.probe();
        if (failures > 0) {
          log.info(
              "relay '{}': the database answers after {} ({} attempt(s))",
              relayName,
              Durations.format(Duration.ofNanos(System.nanoTime() - started)),
              failures + 1);
        }
        return true;
      } catch (DatabaseUnavailableException e) {
        if (!worthWaitingFor(e)) {
          throw e;
        }
        if (failures++ == 0) {
          log.warn(
              "relay '{}': {}; waiting for it (probed again after {}, doubling to {})",
              relayName,
              e.getMessage(),
              Durations.format(FIRST_DELAY),
              Durations.format(MAX_DELAY));
        }
      }
      if (stop.await(delay)) {
        return false;
      }
      delay = delay.multipliedBy(2).compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay.multipliedBy(2);
    }
  }

  /** Whether the database may answer later: it cannot be reached, or it is starting up. */
  static boolean worthWaitingFor(DatabaseUnavailableException e) {
    String state = e.getCause() instanceof SQLException sql ? sql.getSQLState() : null;
    return state == null || state.startsWith("08") || state.equals("57P03");
  }
}
