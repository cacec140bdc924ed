-- txoutbox inbox, version 1: in the consumer's database, not the producer's outbox schema.
-- Unqualified names on purpose: Flyway runs this with search_path set to the configured schema.

-- One row per (consumer, event) already processed. Two consumers of one event each have a row.
CREATE TABLE inbox_processed_events (
    -- varchar(255) counts characters (code points), as OutboxInbox.MAX_CONSUMER_NAME_LENGTH does.
    consumer     varchar(255) NOT NULL,
    event_id     uuid         NOT NULL,
    -- From the inbox's clock, not now(), so retention can be tested with a fixed clock.
    processed_at timestamptz  NOT NULL,
    CONSTRAINT inbox_processed_events_pkey PRIMARY KEY (consumer, event_id)
);

-- Retention cleanup finds the oldest rows without scanning the table.
CREATE INDEX inbox_processed_events_processed_at_idx ON inbox_processed_events (processed_at);
