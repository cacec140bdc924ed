package dev.txoutbox.fleet;

/**
 * What a node does with its relays once it has not renewed its leases for the lease TTL (less a
 * safety margin), because the control database is unreachable from it: it can no longer know
 * whether another node took them over.
 */
public enum ControlLossPolicy {
  /**
   * Stop every relay (as River's elector steps down) before the leases can be taken over; only a
   * batch in flight may still complete, within the relay's shutdown timeout. A control database
   * outage then stops all publishing once the leases run out.
   */
  STOP_ALL,
  /**
   * Stop the WAL relays (a WAL outbox must have one reader, and the new owner waits for the slot to
   * be free) but keep the polling relays: two polling relays on one outbox are wasteful, never
   * wrong (rows are claimed with SKIP LOCKED), so an outage of the control database does not stop
   * publishing. Once renewals succeed again, a relay whose lease was taken over meanwhile stops.
   */
  KEEP_POLLING
}
