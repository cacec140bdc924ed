DELETE FROM public.outbox_events
 WHERE seq IN (SELECT seq FROM public.outbox_events
                WHERE processed_at IS NULL AND dead_lettered_at IS NULL AND retry_after IS NULL
                ORDER BY seq
                LIMIT 10000)
   AND created_at < now() - interval '7 days';
