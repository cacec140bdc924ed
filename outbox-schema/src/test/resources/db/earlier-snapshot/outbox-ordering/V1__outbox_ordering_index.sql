-- Opt-in index for the relay's per-aggregate ordered mode: finds an event's earlier unprocessed
-- events of the same aggregate without scanning the backlog. Costs every insert one more index
-- entry, so only deployments that use ordered mode install it.
CREATE INDEX outbox_events_aggregate_pending_idx
    ON outbox_events (aggregate_type, aggregate_id, seq)
    WHERE processed_at IS NULL;
