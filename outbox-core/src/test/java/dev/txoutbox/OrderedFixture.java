package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;

import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** A schema with the ordering index for an ordered-mode test, and the relays it starts, closed. */
public final class OrderedFixture implements AutoCloseable {

  public final TestDatabase db;
  public final DSLContext dsl;
  public final OutboxAdmin admin;
  private final List<OutboxRelay> relays = new ArrayList<>();

  public OrderedFixture(String prefix) {
    db = TestDatabase.create(prefix, 16);
    OutboxSchema.migrateOrderingIndex(db.dataSource(), db.schema());
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  /** A relay on this schema, closed with the fixture; {@code clock} may be null. */
  public OutboxRelay relay(Publisher publisher, RelayConfig config, Clock clock) {
    OutboxRelay.Builder b = TestSupport.relayBuilder(db, publisher).config(config);
    if (clock != null) {
      b.clock(clock);
    }
    OutboxRelay relay = b.build();
    relays.add(relay);
    return relay;
  }

  /** The attempts counted for event {@code id}. */
  public int attempts(UUID id) {
    return TestSupport.mapped(db)
        .select(OUTBOX_EVENTS.ATTEMPTS)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchSingle(OUTBOX_EVENTS.ATTEMPTS);
  }

  @Override
  public void close() {
    try {
      relays.forEach(r -> r.close(Duration.ofSeconds(10)));
    } finally {
      db.close();
    }
  }
}
