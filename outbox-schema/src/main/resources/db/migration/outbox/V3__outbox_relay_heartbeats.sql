-- txoutbox schema, version 3: relay heartbeats.
--
-- Each running relay (polling or WAL) keeps one row here, written by itself every few seconds
-- (one UPSERT of its own row, never per event), so an operator's console can tell which relays are
-- running, when each last completed a cycle and with which settings. A row whose last_beat_at is
-- older than a few beat intervals belongs to a relay that stopped without closing (stale); a relay
-- that closes stamps stopped_at. Relays delete rows not seen for days, a few at a time.
-- Times are the database server's (now()), so that ages need no agreement between clocks.

CREATE TABLE /*{table_prefix}*/outbox_relays (
    -- One run of one relay: a new id at each start.
    id              uuid         NOT NULL,
    relay_name      varchar(255) NOT NULL,
    -- polling or wal.
    kind            varchar(32)  NOT NULL,
    -- Where it runs: host name and process id.
    host            varchar(255) NOT NULL,
    pid             bigint       NOT NULL,
    -- A short, masked summary of its configuration; never a secret.
    settings        text         NOT NULL,
    -- How often it beats, so that a reader can tell a late beat from a stopped relay.
    beat_interval_ms integer     NOT NULL,
    started_at      timestamptz  NOT NULL,
    last_beat_at    timestamptz  NOT NULL,
    -- The end of its last completed cycle (a claimed batch, or a poll that found nothing).
    last_cycle_at   timestamptz,
    stopped_at      timestamptz,
    CONSTRAINT /*{table_prefix}*/outbox_relays_pkey PRIMARY KEY (id)
);
