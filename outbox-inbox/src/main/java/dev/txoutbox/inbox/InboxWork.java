package dev.txoutbox.inbox;

import org.jooq.DSLContext;

/**
 * A consumer's work for one event, run by {@link OutboxInbox#process(DSLContext, String,
 * InboxEvent, InboxWork)} the first time the event is delivered to that consumer, in the consumer's
 * transaction.
 *
 * <p>Implementations need not be thread-safe: {@code process} runs each one once, on the calling
 * thread.
 */
@FunctionalInterface
public interface InboxWork {

  /**
   * Does the work, on {@code tx} (the transaction given to {@code process}). An exception thrown
   * here undoes the work's statements and the event's mark, and is thrown on by {@code process}.
   *
   * @param tx the consumer's transaction, the one given to {@code process}
   */
  void run(DSLContext tx);
}
