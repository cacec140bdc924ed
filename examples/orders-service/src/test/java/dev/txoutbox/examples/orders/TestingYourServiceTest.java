package dev.txoutbox.examples.orders;

// readme-snippet-start
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.testing.OutboxTestDatabase;
import dev.txoutbox.testing.RecordingPublisher;
import java.util.UUID;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TestingYourServiceTest {

  @RegisterExtension static final OutboxTestDatabase db = OutboxTestDatabase.create();

  @Test
  void creatingAnOrderPublishesOrderCreated() throws Exception {
    OrdersSchema.migrate(db.dataSource(), db.schema()); // your own tables, beside the outbox's
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    CreateOrder service =
        new CreateOrder(DSL.using(db.dataSource(), SQLDialect.POSTGRES), outbox, db.schema());
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .build();

    UUID orderId = service.create("customer-1", 4_200);

    assertThat(relay.drain().published()).hasSize(1);
    publisher.assertPublished().inOrderForAggregate("order", orderId.toString(), "order.created");
    assertThat(publisher.published().get(0).payload()).contains("\"totalCents\": 4200");
  }
}
// readme-snippet-end
