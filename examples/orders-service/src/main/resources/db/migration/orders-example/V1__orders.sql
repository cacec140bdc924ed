-- The example's own tables. Their migrations live apart from the outbox's
-- (classpath:db/migration/orders-example, history table orders_example_schema_history).

-- The order service's business table, written in the same transaction as the order.created event.
CREATE TABLE orders (
    id           uuid         NOT NULL,
    customer_id  varchar(64)  NOT NULL,
    total_cents  bigint       NOT NULL CHECK (total_cents >= 0),
    status       varchar(16)  NOT NULL DEFAULT 'CREATED',
    created_at   timestamptz  NOT NULL DEFAULT now(),
    CONSTRAINT orders_pkey PRIMARY KEY (id)
);

-- The consumer's projection: orders and revenue per customer, built from order.created events.
-- Counting an event twice would show here, which is why the consumer deduplicates.
CREATE TABLE customer_totals (
    customer_id  varchar(64)  NOT NULL,
    orders       bigint       NOT NULL,
    total_cents  bigint       NOT NULL,
    CONSTRAINT customer_totals_pkey PRIMARY KEY (customer_id)
);
