-- txoutbox fleet control tables, version 1.
-- Unqualified names on purpose: Flyway runs this with search_path set to the control schema
-- (FleetSchema.migrate). Every time in these tables comes from the database's clock (now()),
-- never from a node's JVM, so nodes with skewed clocks still agree on who holds what.

-- The registry: one row per outbox the fleet serves. No secret is ever stored here: a password
-- is a reference (env:NAME or file:/path) resolved by the node that runs the relay.
CREATE TABLE fleet_outboxes (
    name               text        NOT NULL,
    jdbc_url           text        NOT NULL,
    db_user            text,
    password_ref       text,
    outbox_schema      text        NOT NULL DEFAULT 'public',
    table_prefix       text        NOT NULL DEFAULT '',
    kind               text        NOT NULL,
    slot_name          text,
    publisher          text        NOT NULL,
    -- Setting name to value; a secret setting's value is a reference like password_ref.
    publisher_settings jsonb       NOT NULL DEFAULT '{}',
    weight             integer     NOT NULL DEFAULT 1,
    enabled            boolean     NOT NULL DEFAULT true,
    -- Incremented by every update: a node restarts the relay of an entry whose version moved.
    version            bigint      NOT NULL DEFAULT 1,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT fleet_outboxes_pkey PRIMARY KEY (name),
    CONSTRAINT fleet_outboxes_kind CHECK (kind IN ('polling', 'wal')),
    CONSTRAINT fleet_outboxes_weight CHECK (weight BETWEEN 1 AND 1000000)
);

-- Membership: a node is alive while expires_at (its last heartbeat + the lease TTL) is ahead.
CREATE TABLE fleet_nodes (
    node_id      text        NOT NULL,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    CONSTRAINT fleet_nodes_pkey PRIMARY KEY (node_id)
);

-- One lease per outbox. owner is null when nobody holds it (never taken, or released). term is
-- the fencing number: it grows by one at every acquisition, so a renewal or a release names the
-- exact term it holds and can never touch a later owner's lease.
CREATE TABLE fleet_leases (
    outbox      text        NOT NULL,
    owner       text,
    term        bigint      NOT NULL DEFAULT 0,
    acquired_at timestamptz,
    expires_at  timestamptz NOT NULL DEFAULT '-infinity',
    CONSTRAINT fleet_leases_pkey PRIMARY KEY (outbox),
    CONSTRAINT fleet_leases_outbox_fkey FOREIGN KEY (outbox)
        REFERENCES fleet_outboxes (name) ON DELETE CASCADE
);
CREATE INDEX fleet_leases_owner_idx ON fleet_leases (owner);
