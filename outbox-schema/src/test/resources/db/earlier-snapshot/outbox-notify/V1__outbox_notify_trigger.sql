-- Opt-in wake-up for relays in other processes: one NOTIFY per inserting statement with a
-- constant payload. A per-row pg_notify with the event id costs writers about 30% of their
-- throughput (every committing transaction with a pending notification takes a database-wide
-- lock); a statement-level constant payload is cheaper and PostgreSQL folds duplicates.
-- The channel is txoutbox_<schema>, so relays of different schemas do not wake each other.
-- [jooq ignore start]
CREATE OR REPLACE FUNCTION outbox_events_notify() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_notify('txoutbox_' || TG_TABLE_SCHEMA, '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER outbox_events_notify
    AFTER INSERT ON outbox_events
    FOR EACH STATEMENT
    EXECUTE FUNCTION outbox_events_notify();
-- [jooq ignore stop]
