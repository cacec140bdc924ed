UPDATE public.outbox_events SET processed_at = now()
 WHERE processed_at IS NULL AND id = ANY(:'delivered_ids'::uuid[]);
