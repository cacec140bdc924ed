-- Opt-in wake-up for relays in other processes: one NOTIFY per inserting statement with a
-- constant payload. A per-row pg_notify with the event id costs writers about 30% of their
-- throughput (every committing transaction with a pending notification takes a database-wide
-- lock); a statement-level constant payload is cheaper and PostgreSQL folds duplicates.
-- The channel is txoutbox_<table prefix><schema> (txoutbox_<schema> without a prefix), so relays of
-- different outboxes do not wake each other. The prefix is read from the table's own name (all but
-- its last 13 characters, 'outbox_events'), so the body holds no placeholder and is the same text
-- for every prefix.
-- [jooq ignore start]
CREATE OR REPLACE FUNCTION /*{table_prefix}*/outbox_events_notify() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_notify('txoutbox_' || left(TG_TABLE_NAME, -13) || TG_TABLE_SCHEMA, '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER /*{table_prefix}*/outbox_events_notify
    AFTER INSERT ON /*{table_prefix}*/outbox_events
    FOR EACH STATEMENT
    EXECUTE FUNCTION /*{table_prefix}*/outbox_events_notify();
-- [jooq ignore stop]
