package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestClock;
import java.time.Duration;
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

/**
 * The time a published row carries is the time of the outcome, not of the claim: written again
 * after the publish when the broker took at least {@link WalStatements#RESTAMP_AFTER} to answer.
 */
class WalRelayOutcomeTimeTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  /** Blocks each publish until released, moving the relay's clock meanwhile. */
  private static final class BlockingPublisher implements Publisher {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final TestClock clock;
    final Duration held;
    final AtomicReference<Instant> returned = new AtomicReference<>();

    BlockingPublisher(TestClock clock, Duration held) {
      this.clock = clock;
      this.held = held;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      entered.countDown();
      release.await();
      returned.set(clock.advance(held));
      return Collections.nCopies(messages.size(), PublishResult.published());
    }

    @Override
    public String name() {
      return "blocking";
    }
  }

  @Test
  void processedAtIsTheTimeThePublisherReturnedWhenThePublishWasHeldUp() throws Exception {
    TestClock clock = TestClock.now();
    Instant claimed = clock.instant();
    OffsetDateTime processedAt = publishOne(clock, Duration.ofHours(1));
    assertThat(processedAt.toInstant())
        .isEqualTo(claimed.plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MICROS));
  }

  @Test
  void aBatchAnsweredSoonerThanTheRestampKeepsTheClaimsTime() throws Exception {
    TestClock clock = TestClock.now();
    Instant claimed = clock.instant();
    OffsetDateTime processedAt = publishOne(clock, WalStatements.RESTAMP_AFTER.minusMillis(1));
    assertThat(processedAt.toInstant()).isEqualTo(claimed.truncatedTo(ChronoUnit.MICROS));
  }

  /** Publishes one event through a publisher that moves {@code clock} by {@code held}. */
  private OffsetDateTime publishOne(TestClock clock, Duration held) throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("ot_");
    BlockingPublisher publisher = new BlockingPublisher(clock, held);
    kit.relay(WalTestKit.builder(tables, publisher, WalTestKit.config(10)).clock(clock)).start();
    UUID id = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 1).get(0);
    // The claim is done before the publish starts; the broker answers once the test lets it.
    publisher.entered.await();
    publisher.release.countDown();
    await().atMost(WalTestKit.WAIT).until(() -> published(tables, id));
    return processedAt(tables, id);
  }

  /** Whether the relay's batch of {@code id} committed (its row is marked and no longer locked). */
  private static boolean published(OutboxTables tables, UUID id) {
    return processedAt(tables, id) != null;
  }

  private static OffsetDateTime processedAt(OutboxTables tables, UUID id) {
    return LogicalServer.dsl(tables)
        .select(OUTBOX_EVENTS.PROCESSED_AT)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchOne(OUTBOX_EVENTS.PROCESSED_AT);
  }
}
