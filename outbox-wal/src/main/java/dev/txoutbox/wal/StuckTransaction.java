package dev.txoutbox.wal;

import org.jspecify.annotations.Nullable;

/**
 * Tells a transaction the stream cannot get past: the stream failed {@link #SKIP_AFTER} times in a
 * row while reading it (its Begin read, its Commit not), as it does on every reconnection when the
 * server cannot decode a row of it (a payload it would render past 1 GB: "out of memory, Cannot
 * enlarge string buffer"). A failure outside any transaction, or in another one, starts a new
 * count; so does {@link #reset()}. Not thread-safe: the reader's.
 */
final class StuckTransaction {

  /** Failures in a row while reading one transaction after which the relay moves past it: 3. */
  static final int SKIP_AFTER = 3;

  private PgOutput.@Nullable Begin last;
  private int inARow;

  /**
   * Notes a failure of the stream while reading the transaction that {@code in} began, or outside
   * any transaction if null.
   *
   * @return whether it is at least the {@link #SKIP_AFTER}-th failure in a row in that transaction
   */
  boolean failedIn(PgOutput.@Nullable Begin in) {
    if (in == null) {
      reset();
      return false;
    }
    if (in.equals(last)) {
      inARow++;
    } else {
      last = in;
      inARow = 1;
    }
    return inARow >= SKIP_AFTER;
  }

  /** How many failures in a row the current count holds. */
  int inARow() {
    return inARow;
  }

  /** Forgets the count: the relay moved past the transaction. */
  void reset() {
    last = null;
    inARow = 0;
  }
}
