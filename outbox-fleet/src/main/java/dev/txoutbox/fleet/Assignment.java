package dev.txoutbox.fleet;

import org.jspecify.annotations.Nullable;

/**
 * An outbox a node holds the lease of, and what its relay is doing: what a readiness probe or a
 * status page shows.
 *
 * @param outbox the outbox's name
 * @param term the lease's term, which grows at each takeover
 * @param state what the relay is doing
 * @param lastError the last start failure, secrets masked; null if none since the last start
 */
public record Assignment(String outbox, long term, State state, @Nullable String lastError) {

  /** What the relay of an assigned outbox is doing. */
  public enum State {
    /** Being started. */
    STARTING,
    /** Started: its relay publishes (or waits out its database or broker on its own). */
    RUNNING,
    /** A WAL outbox whose replication slot is still in use by a previous reader. */
    WAITING_FOR_SLOT,
    /** Its start failed; tried again after a backoff. */
    BACKING_OFF,
    /** Being stopped: released, lost, changed or removed. */
    STOPPING
  }
}
