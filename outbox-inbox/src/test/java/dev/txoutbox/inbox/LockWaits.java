package dev.txoutbox.inbox;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** Waits for a concurrent delivery to block on another's uncommitted mark. */
final class LockWaits {

  private LockWaits() {}

  /**
   * Returns once a session waits for a lock in a statement on the inbox table of {@code schema}: a
   * second delivery's mark waiting for the first's transaction. Fails after 30 seconds.
   */
  static void awaitAMarkWaiting(DSLContext dsl, String schema) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                dsl.fetchCount(
                        DSL.table("pg_stat_activity"),
                        DSL.field("wait_event_type")
                            .eq("Lock")
                            .and(
                                DSL.field("query")
                                    .like("%" + schema + "\".\"inbox_processed_events%"))
                            .and(DSL.field("datname").eq(DSL.field("current_database()"))))
                    > 0);
  }
}
