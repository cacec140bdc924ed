package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The time a published row carries is the time of the outcome, not of the claim. */
class WalRelayOutcomeTimeTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  /** Blocks each publish until released, and notes when it returned. */
  private static final class BlockingPublisher implements Publisher {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicReference<Instant> returned = new AtomicReference<>();

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      entered.countDown();
      release.await();
      List<PublishResult> ok = Collections.nCopies(messages.size(), PublishResult.published());
      returned.set(Instant.now());
      return ok;
    }

    @Override
    public String name() {
      return "blocking";
    }
  }

  @Test
  void processedAtIsTheTimeThePublisherReturnedNotTheClaimsTime() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("ot_");
    BlockingPublisher publisher = new BlockingPublisher();
    kit.relay(tables, publisher, WalTestKit.config(10)).start();
    UUID id = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 1).get(0);
    // The claim is done before the publish starts; the broker answers once the test lets it.
    publisher.entered.await();
    publisher.release.countDown();

    await().atMost(WalTestKit.WAIT).until(() -> processedAt(tables, id) != null);
    Instant returned = publisher.returned.get();
    assertThat(processedAt(tables, id).toInstant())
        .isAfterOrEqualTo(returned.truncatedTo(ChronoUnit.MICROS));
  }

  private static OffsetDateTime processedAt(OutboxTables tables, UUID id) {
    return LogicalServer.dsl(tables)
        .select(OUTBOX_EVENTS.PROCESSED_AT)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchOne(OUTBOX_EVENTS.PROCESSED_AT);
  }
}
