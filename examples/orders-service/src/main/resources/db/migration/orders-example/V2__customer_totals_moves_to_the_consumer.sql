-- The consumer's projection now lives in the consumer's own schema, with its inbox
-- (classpath:db/migration/orders-consumer): the order service keeps only its orders.
DROP TABLE IF EXISTS customer_totals;
