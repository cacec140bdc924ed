package dev.txoutbox.internal.writer;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jooq.TransactionContext;
import org.jooq.impl.DefaultTransactionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the after-commit actions (typically waking in-process relays) once the outermost jOOQ
 * transaction that recorded events commits: those of every writer that recorded in it, whichever
 * writer's listener the transaction's configuration holds. So one installed listener wakes the
 * relays of every outbox a transaction wrote, and a configuration holding several writers'
 * listeners wakes each relay once.
 *
 * <p>The state is per thread and shared by every writer, because jOOQ's blocking transactions run
 * on one thread; nested transactions (savepoints) are counted, once per installed listener, so only
 * the outermost commit fires.
 */
final class CommitWakeUp extends DefaultTransactionListener {

  private static final Logger log = LoggerFactory.getLogger(CommitWakeUp.class);

  /** The current thread's transaction: its depth and the writers that recorded in it. */
  private static final class State {
    int depth;
    final Set<CommitWakeUp> written = new LinkedHashSet<>();
  }

  private static final ThreadLocal<State> STATE = ThreadLocal.withInitial(State::new);

  private final List<Runnable> actions;

  CommitWakeUp(List<Runnable> actions) {
    this.actions = List.copyOf(actions);
  }

  /** Called by the writer after an INSERT on this thread. */
  void eventsWritten() {
    if (!actions.isEmpty()) {
      STATE.get().written.add(this);
    }
  }

  /** Called by the writer after events committed on their own (auto-commit mode). */
  void committed() {
    runActions();
  }

  @Override
  public void beginStart(TransactionContext ctx) {
    STATE.get().depth++;
  }

  @Override
  public void commitEnd(TransactionContext ctx) {
    State s = STATE.get();
    if (--s.depth > 0) {
      return;
    }
    List<CommitWakeUp> written = List.copyOf(s.written);
    STATE.remove();
    for (CommitWakeUp writer : written) {
      writer.runActions();
    }
  }

  private void runActions() {
    for (Runnable action : actions) {
      try {
        action.run();
      } catch (RuntimeException e) {
        log.warn("after-commit action failed; the relay will find the events at its next poll", e);
      }
    }
  }

  @Override
  public void rollbackEnd(TransactionContext ctx) {
    State s = STATE.get();
    if (--s.depth <= 0) {
      STATE.remove();
    }
  }
}
