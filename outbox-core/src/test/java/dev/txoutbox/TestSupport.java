package dev.txoutbox;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** Test plumbing shared by the core tests. */
public final class TestSupport {
  private TestSupport() {}

  /** A relay builder on the test's data source and schema. */
  public static OutboxRelay.Builder relayBuilder(TestDatabase db, Publisher publisher) {
    return OutboxRelay.builder()
        .dataSource(db.dataSource())
        .schema(db.schema())
        .publisher(publisher);
  }

  /** A context that renders the generated model into the test's schema. */
  public static DSLContext mapped(TestDatabase db) {
    return DSL.using(
        db.dataSource(), SQLDialect.POSTGRES, OutboxSchema.withSchema(null, db.schema()));
  }

  /**
   * Inserts a pending {@code order.poison} event by SQL, as another tool would, with the payload
   * and headers given as SQL expressions, so they may hold what the outbox never writes.
   */
  public static UUID insertPoison(
      TestDatabase db, String aggregateId, String payloadSql, String headersSql) {
    UUID id = UUID.randomUUID();
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload, headers)"
            + " VALUES ('"
            + id
            + "', 'order', '"
            + aggregateId
            + "', 'order.poison', "
            + payloadSql
            + ", "
            + headersSql
            + ")");
    return id;
  }
}
