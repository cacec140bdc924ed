package dev.txoutbox.inbox;

import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;

/**
 * A subtransaction of the caller's transaction, so that a failure undoes only what ran inside it
 * and leaves the transaction usable. Plain SQL on the caller's connection, not jOOQ's nested
 * transactions: those would commit the connection themselves when the caller's transaction is
 * managed outside jOOQ. Stateless and thread-safe.
 */
final class Savepoint {

  /** The savepoint's name; a nested one of the same name shadows it until released. */
  static final String NAME = "txoutbox_inbox_process";

  private Savepoint() {}

  /**
   * Runs {@code body} inside a savepoint of {@code tx}'s transaction: released when it returns,
   * rolled back to (and released) when it throws, after which its exception is thrown on with any
   * failure of the roll-back suppressed in it.
   */
  static boolean around(DSLContext tx, BooleanSupplier body) {
    tx.execute("SAVEPOINT " + NAME);
    boolean result;
    try {
      result = body.getAsBoolean();
    } catch (Throwable failure) {
      try {
        tx.execute("ROLLBACK TO SAVEPOINT " + NAME);
        tx.execute("RELEASE SAVEPOINT " + NAME);
      } catch (RuntimeException rollback) {
        failure.addSuppressed(rollback);
      }
      throw failure;
    }
    tx.execute("RELEASE SAVEPOINT " + NAME);
    return result;
  }
}
