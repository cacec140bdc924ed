package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** One outbox table feeds two publishers through a {@link RoutingPublisher}, on PostgreSQL. */
class RoutingRelayTest {

  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("routing");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void oneTableFeedsTwoPublishersByAggregateTypeAndAnUnknownTypeBecomesADeadLetter()
      throws Exception {
    RecordingPublisher orders = new RecordingPublisher();
    RecordingPublisher invoices = new RecordingPublisher();
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType()
            .route("order", orders)
            .route("invoice", invoices)
            .build();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(routing)
            .config(RelayConfig.builder().name("routed").build())
            .build();
    Outbox outbox = Outbox.builder().relay(relay).build();
    DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    List<UUID> ids =
        dsl.transactionResult(
            tx ->
                outbox.recordAll(
                    tx.dsl(),
                    List.of(
                        OutboxEvent.of("order", "o-1", "order.created", "{}"),
                        OutboxEvent.of("invoice", "i-1", "invoice.issued", "{}"),
                        OutboxEvent.of("refund", "r-1", "refund.requested", "{}"),
                        OutboxEvent.of("order", "o-1", "order.paid", "{}"),
                        OutboxEvent.of("invoice", "i-1", "invoice.paid", "{}"),
                        OutboxEvent.of("order", "o-2", "order.created", "{}"))));

    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    Logger txoutbox = (Logger) LoggerFactory.getLogger("dev.txoutbox");
    logs.start();
    txoutbox.addAppender(logs);
    OutboxAdmin admin = relay.admin();
    try {
      relay.start();
      // All six committed before the start: the first cycle claims them as one batch.
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> admin.pendingCount() == 0 && admin.deadLetterCount() == 1);
    } finally {
      relay.close(Duration.ofSeconds(10));
      txoutbox.detachAppender(logs);
    }
    assertThat(logs.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .filteredOn(line -> line.startsWith("outbox relay routed starting"))
        .singleElement()
        .asString()
        .contains("publisher routing{by aggregate type: order -> recording, invoice -> recording}");

    assertThat(orders.published())
        .extracting(OutboxMessage::id)
        .containsExactly(ids.get(0), ids.get(3), ids.get(5));
    assertThat(invoices.published())
        .extracting(OutboxMessage::id)
        .containsExactly(ids.get(1), ids.get(4));
    assertThat(orders.batches()).as("one batch per delegate").isEqualTo(1);
    assertThat(invoices.batches()).isEqualTo(1);
    assertThat(admin.pendingCount()).isZero();
    assertThat(admin.deadLetters(null, 10))
        .singleElement()
        .satisfies(
            dead -> {
              assertThat(dead.id()).isEqualTo(ids.get(2));
              assertThat(dead.lastError())
                  .contains(
                      "has no route for aggregate type 'refund' (event type"
                          + " 'refund.requested')");
            });
  }
}
