package dev.txoutbox.internal.writer;

import java.util.List;
import org.jooq.TransactionContext;
import org.jooq.impl.DefaultTransactionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the after-commit actions (typically waking in-process relays) once the outermost jOOQ
 * transaction that recorded events commits. Per-thread state, because jOOQ's blocking transactions
 * run on one thread; nested transactions (savepoints) are counted so only the outermost commit
 * fires.
 */
final class CommitWakeUp extends DefaultTransactionListener {

  private static final Logger log = LoggerFactory.getLogger(CommitWakeUp.class);

  private static final class State {
    int depth;
    boolean written;
  }

  private final List<Runnable> actions;
  private final ThreadLocal<State> state = ThreadLocal.withInitial(State::new);

  CommitWakeUp(List<Runnable> actions) {
    this.actions = List.copyOf(actions);
  }

  /** Called by the writer after an INSERT on this thread. */
  void eventsWritten() {
    if (!actions.isEmpty()) {
      state.get().written = true;
    }
  }

  /** Called by the writer after events committed on their own (auto-commit mode). */
  void committed() {
    runActions();
  }

  @Override
  public void beginStart(TransactionContext ctx) {
    state.get().depth++;
  }

  @Override
  public void commitEnd(TransactionContext ctx) {
    State s = state.get();
    if (--s.depth > 0) {
      return;
    }
    boolean written = s.written;
    state.remove();
    if (written) {
      runActions();
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
    State s = state.get();
    if (--s.depth <= 0) {
      state.remove();
    }
  }
}
