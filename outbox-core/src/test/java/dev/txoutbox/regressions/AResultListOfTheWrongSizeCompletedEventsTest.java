package dev.txoutbox.regressions;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.TestSupport;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestDatabase;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.IntFunction;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A publisher that returns fewer or more results than it was given messages (or none) says nothing
 * reliable about any of them: pairing results with messages by position would complete events the
 * broker never acknowledged. The whole batch is a retryable failure instead: one attempt each,
 * nothing completed.
 */
class AResultListOfTheWrongSizeCompletedEventsTest {

  private static TestDatabase db;
  private static DSLContext mapped;
  private OutboxAdmin admin;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("regress_size");
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
  }

  private List<UUID> write(int count) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{}"));
    }
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private void assertNothingCompletedAndOneAttemptEach(IntFunction<List<PublishResult>> wrongAnswer)
      throws InterruptedException {
    List<UUID> ids = write(5);
    Publisher wrong = messages -> wrongAnswer.apply(messages.size());
    OutboxRelay relay = TestSupport.relayBuilder(db, wrong).build();

    assertThat(relay.runOnce()).isEqualTo(5);

    assertThat(admin.pendingCount()).as("nothing completed").isEqualTo(5);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.eq(1))).isEqualTo(5);
    assertThat(
            mapped
                .select(OUTBOX_EVENTS.LAST_ERROR)
                .from(OUTBOX_EVENTS)
                .where(OUTBOX_EVENTS.ID.in(ids))
                .fetch(OUTBOX_EVENTS.LAST_ERROR))
        .allMatch(e -> e.startsWith("publisher ") && e.endsWith(" for 5 messages"));
  }

  @Test
  void tooFewResultsCompleteNothing() throws Exception {
    assertNothingCompletedAndOneAttemptEach(n -> List.of(PublishResult.published()));
  }

  @Test
  void tooManyResultsCompleteNothing() throws Exception {
    assertNothingCompletedAndOneAttemptEach(
        n -> Collections.nCopies(n + 1, PublishResult.published()));
  }

  @Test
  void noResultListCompletesNothing() throws Exception {
    assertNothingCompletedAndOneAttemptEach(n -> null);
  }
}
