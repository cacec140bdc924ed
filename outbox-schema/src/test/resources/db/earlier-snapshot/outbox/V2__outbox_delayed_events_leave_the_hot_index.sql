-- txoutbox schema, version 2: delayed events leave the hot index.
--
-- Version 1's outbox_events_pending_idx held every pending row, so events delayed far ahead
-- (notBefore, or a long retry backoff) sat at the front of the index the claim reads in seq order:
-- with 200,000 events delayed a week, every idle poll read them all (~100 ms) to find none due.
-- The pending rows are now split by whether they wait for a time: the claim reads the ready ones
-- in seq order and the waiting ones in time order, so an idle poll is one probe of each, however
-- many events wait. Each row is in exactly one of the two, as it was in the one index before.

CREATE INDEX outbox_events_ready_idx ON outbox_events (seq)
    WHERE processed_at IS NULL AND dead_lettered_at IS NULL AND retry_after IS NULL;

CREATE INDEX outbox_events_waiting_idx ON outbox_events (retry_after)
    WHERE processed_at IS NULL AND dead_lettered_at IS NULL AND retry_after IS NOT NULL;

DROP INDEX outbox_events_pending_idx;
