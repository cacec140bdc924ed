-- The downstream consumer's own table, in the consumer's schema next to its inbox
-- (classpath:db/migration/orders-consumer, history table orders_consumer_schema_history).

-- The consumer's projection: orders and revenue per customer, built from order.created events.
-- Counting an event twice would show here, which is why the consumer deduplicates.
CREATE TABLE customer_totals (
    customer_id  varchar(64)  NOT NULL,
    orders       bigint       NOT NULL,
    total_cents  bigint       NOT NULL,
    CONSTRAINT customer_totals_pkey PRIMARY KEY (customer_id)
);
