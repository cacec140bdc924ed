package dev.txoutbox.regressions;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.TestSupport;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay checked a publisher's results with {@code List.contains(null)}, which throws on the
 * immutable lists of {@code List.of} and {@code List.copyOf}: every batch of such a publisher
 * failed. Null entries are now looked for without asking the list whether it holds one.
 */
class AnImmutableResultListWasRejectedTest {

  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("regress_immutable");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void publisherReturningAnImmutableResultListIsAccepted() throws Exception {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<UUID> ids =
        DSL.using(db.dataSource(), SQLDialect.POSTGRES)
            .transactionResult(
                tx ->
                    outbox.recordAll(
                        tx.dsl(),
                        List.of(
                            OutboxEvent.of("order", "i", "order.created", "{}"),
                            OutboxEvent.of("order", "i", "order.paid", "{}"),
                            OutboxEvent.of("order", "i", "order.shipped", "{}"))));
    Publisher immutable =
        messages -> List.copyOf(Collections.nCopies(messages.size(), PublishResult.published()));
    OutboxRelay relay = TestSupport.relayBuilder(db, immutable).build();

    assertThat(relay.runOnce()).isEqualTo(3);
    assertThat(
            TestSupport.mapped(db)
                .fetchCount(
                    OUTBOX_EVENTS,
                    OUTBOX_EVENTS.ID.in(ids).and(OUTBOX_EVENTS.PROCESSED_AT.isNotNull())))
        .isEqualTo(3);
  }
}
