-- The indexes of the relay's per-aggregate ordered mode, version 2. The relay walks the pending
-- events aggregate by aggregate (a loose index scan: one probe per aggregate, whatever its backlog)
-- and reads each claimable aggregate's run of events in seq order from the same index. Its predicate
-- is that of outbox_events_pending_idx, so dead letters and processed rows leave it.
CREATE INDEX outbox_events_pending_aggregate_idx
    ON outbox_events (aggregate_type, aggregate_id, seq)
    WHERE processed_at IS NULL AND dead_lettered_at IS NULL;

-- Dead letters by aggregate, small by nature: PER_AGGREGATE halts an aggregate at its first dead
-- letter, found with one probe.
CREATE INDEX outbox_events_dead_aggregate_idx
    ON outbox_events (aggregate_type, aggregate_id, seq)
    WHERE dead_lettered_at IS NOT NULL;

-- Version 1's index also held dead letters and is replaced by the two above.
DROP INDEX IF EXISTS outbox_events_aggregate_pending_idx;
