CREATE PUBLICATION txoutbox_debezium FOR TABLE public.outbox_events WITH (publish = 'insert');
