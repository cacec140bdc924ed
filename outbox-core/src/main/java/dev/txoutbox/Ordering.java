package dev.txoutbox;

/**
 * Whether the relay keeps each aggregate's events in order.
 *
 * <p>In the per-aggregate modes an event is claimed only when every earlier event of its aggregate
 * (same aggregate type and id, lower {@code seq}) is processed: event <i>n+1</i> is never handed to
 * the publisher before event <i>n</i> was acknowledged and committed, with any number of workers
 * and relays. A failing event holds back only its own aggregate, and each batch carries at most one
 * event per aggregate, so throughput grows with the number of aggregates that have pending events.
 * Install the supporting index with {@code OutboxSchema.migrateOrderingIndex}, and if different
 * transactions may write events of one aggregate at the same time without locking its row, build
 * the writer with {@link Outbox.Builder#lockPerAggregate(boolean)}: otherwise a later event can
 * commit before an earlier one and be published first.
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
