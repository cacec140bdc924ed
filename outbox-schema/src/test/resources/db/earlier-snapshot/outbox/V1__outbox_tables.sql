-- txoutbox schema, version 1.
-- Unqualified names on purpose: Flyway runs this with search_path set to the configured schema.

CREATE TABLE outbox_events (
    id              uuid         NOT NULL,
    -- Total insert order. created_at is the transaction start time, so events of one
    -- transaction tie on it; seq never ties.
    seq             bigint       GENERATED ALWAYS AS IDENTITY,
    aggregate_type  varchar(255) NOT NULL,
    aggregate_id    varchar(255) NOT NULL,
    event_type      varchar(255) NOT NULL,
    payload         jsonb        NOT NULL,
    -- Trace context and user headers, string to string; copied onto the broker message.
    headers         jsonb        NOT NULL DEFAULT '{}',
    -- Failed publish attempts so far.
    attempts        integer      NOT NULL DEFAULT 0,
    created_at      timestamptz  NOT NULL DEFAULT now(),
    -- Not published before this time: backoff after a failure, or delayed delivery.
    retry_after     timestamptz,
    processed_at    timestamptz,
    dead_lettered_at timestamptz,
    -- The last failure's reason, truncated by the relay.
    last_error      text,
    CONSTRAINT outbox_events_pkey PRIMARY KEY (id)
);

-- The hot index: only rows waiting to be published. Processed rows and dead letters leave it.
CREATE INDEX outbox_events_pending_idx ON outbox_events (seq)
    WHERE processed_at IS NULL AND dead_lettered_at IS NULL;

-- Retention cleanup finds old processed rows without scanning the table.
CREATE INDEX outbox_events_processed_idx ON outbox_events (processed_at)
    WHERE processed_at IS NOT NULL;

-- Dead letters, small by nature, listed and counted by operators.
CREATE INDEX outbox_events_dead_idx ON outbox_events (dead_lettered_at)
    WHERE dead_lettered_at IS NOT NULL;

CREATE VIEW outbox_dead_letters AS
    SELECT id, seq, aggregate_type, aggregate_id, event_type, payload, headers, attempts,
           created_at, dead_lettered_at, last_error
      FROM outbox_events
     WHERE dead_lettered_at IS NOT NULL;

-- Backs the idempotent-consumer helper: one row per (consumer, event) already handled.
CREATE TABLE processed_events (
    consumer      varchar(255) NOT NULL,
    event_id      uuid         NOT NULL,
    processed_at  timestamptz  NOT NULL DEFAULT now(),
    CONSTRAINT processed_events_pkey PRIMARY KEY (consumer, event_id)
);
