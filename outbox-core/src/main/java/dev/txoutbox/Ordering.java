package dev.txoutbox;

/**
 * Whether the relay keeps each aggregate's events in order.
 *
 * <p>In the per-aggregate modes a relay claims an aggregate's events only from its first pending
 * one on, as a run of consecutive events in {@code seq} order (up to a whole batch of one
 * aggregate), and only while no other relay or worker holds that aggregate. The publisher gets the
 * run in order and, once one of its events fails, the later ones are not published: event
 * <i>n+1</i> is never published before event <i>n</i> was acknowledged, with any number of workers
 * and relays. A failing event holds back only its own aggregate. The claim walks the aggregates
 * with pending events one index probe each, from where the previous claim stopped, so its cost is
 * bounded by the batch size whatever the backlog, and every aggregate gets its turn; an aggregate
 * that is blocked (its first event in backoff, behind a dead letter, or held by another relay)
 * costs one probe and takes one place of the batch.
 *
 * <p>A relay in these modes refuses to start without the indexes the claim walks: install them with
 * {@code OutboxSchema.migrateOrderingIndex} or {@code txoutbox migrate --with-ordering-index}. If
 * different transactions may write events of one aggregate at the same time without locking its
 * row, build the writer with {@link Outbox.Builder#lockPerAggregate(boolean)}: otherwise a later
 * event can commit before an earlier one and be published first.
 */
public enum Ordering {
  /** Best-effort insert order; workers and relays publish in parallel. The default. */
  NONE,
  /**
   * Per aggregate; a dead letter halts its aggregate: later events wait until an operator requeues
   * or purges it. Nothing is ever published out of order.
   */
  PER_AGGREGATE,
  /**
   * Per aggregate; a dead letter is parked and its aggregate's later events go on. If the dead
   * letter is requeued later, it arrives after them.
   */
  PER_AGGREGATE_SKIP_DEAD_LETTERS
}
