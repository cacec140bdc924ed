package dev.txoutbox.internal.relay;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Where a failure of the relay's cycle comes from, decided by exception type and SQLState, in this
 * one place. Only a failure of the rows' data may make a claimed row a dead letter: a statement
 * timeout, a cancel, a serialization failure or a lost connection fails the cycle instead, which
 * rolls back and is run again, so that no healthy event becomes a dead letter.
 */
enum FailureSource {

  /**
   * The row's data, reported by the server or the driver: an SQLState of class 22 (data exception:
   * a value that cannot be converted or encoded), class 54 (program limit exceeded: a value the
   * server cannot render within its 1 GB limit, "out of memory ... Cannot enlarge string buffer")
   * or XX001 (data corrupted).
   */
  ROW_DATA,

  /**
   * A conflict with another transaction, SQLState class 40 (serialization failure, deadlock): the
   * server rolled this one back, and running it again is the cure. The per-aggregate claim meets
   * one now and then beside a WAL relay; it is no outage.
   */
  CONFLICT,

  /**
   * The database or the way to it, with any other SQLState or none: 57014 (statement timeout,
   * cancel), class 08 (connection lost or refused), 57P0x (server shutting down, backend
   * terminated), class 53 (insufficient resources), class 55 (lock not available), class 25
   * (transaction aborted), a pool's timeout without a state.
   */
  DATABASE,

  /**
   * Java code, with no {@link SQLException} among the causes: while reading claimed rows, the
   * relay's decoding of a value the server sent (headers that are not a JSON object of strings);
   * elsewhere, a bug.
   */
  CODE;

  /** Where {@code failure} comes from: the first {@link SQLException} among its causes decides. */
  static FailureSource of(Throwable failure) {
    SQLException sql = firstSqlException(failure);
    if (sql == null) {
      return CODE;
    }
    String state = sql.getSQLState();
    if (state == null) {
      return DATABASE;
    }
    if (state.startsWith("22") || state.startsWith("54") || state.equals("XX001")) {
      return ROW_DATA;
    }
    return state.startsWith("40") ? CONFLICT : DATABASE;
  }

  /**
   * Whether a failure to read claimed rows means a row cannot be read, so that reading them one by
   * one and making the failing row a dead letter is right; otherwise the cycle must fail.
   */
  static boolean isUnreadableRow(Throwable failure) {
    return switch (of(failure)) {
      case ROW_DATA, CODE -> true;
      case CONFLICT, DATABASE -> false;
    };
  }

  /**
   * {@code failure} as a log line shows it: from its first {@link SQLException} on, with the causes
   * of that (the server's message, the refused connection behind a pool's timeout), rather than the
   * wrappers around it, whose text may hold a whole statement.
   */
  static String describe(Throwable failure) {
    SQLException sql = firstSqlException(failure);
    if (sql == null) {
      return failure.toString();
    }
    StringBuilder text = new StringBuilder(sql.toString());
    int depth = 0;
    for (Throwable t = sql.getCause(); t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
      text.append("; caused by ").append(t);
    }
    return text.toString();
  }

  /** How deep a cause chain is followed; a chain may loop. */
  private static final int MAX_CAUSES = 16;

  private static @Nullable SQLException firstSqlException(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSES; t = t.getCause(), depth++) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }
}
