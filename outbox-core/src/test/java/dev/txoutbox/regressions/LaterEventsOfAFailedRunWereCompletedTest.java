package dev.txoutbox.regressions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.OrderedFixture;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The run-order rule: once an event of an aggregate is not published, the later events of that
 * aggregate in the batch are not attempted, whatever the publisher reports for them. The relay used
 * to take a careless publisher's "published" for them, completing event n+1 while event n waited
 * for its retry.
 */
class LaterEventsOfAFailedRunWereCompletedTest {

  private OrderedFixture fixture;

  @BeforeEach
  void setUp() {
    fixture = new OrderedFixture("regress_run");
  }

  @AfterEach
  void tearDown() {
    fixture.close();
  }

  private UUID write(String aggregateId) {
    Outbox outbox = Outbox.builder().schema(fixture.db.schema()).build();
    return fixture.dsl.transactionResult(
        tx -> outbox.record(tx.dsl(), "account", aggregateId, "account.changed", "{}"));
  }

  @Test
  void eventsAfterAFailureInARunAreNotAttemptedWhateverThePublisherReports() throws Exception {
    UUID r1 = write("r");
    UUID r2 = write("r");
    UUID r3 = write("r");
    UUID other = write("other");
    // A publisher that breaks the contract: it reports r2 and r3 published after r1 failed.
    List<List<UUID>> handedOver = Collections.synchronizedList(new ArrayList<>());
    Publisher careless =
        messages -> {
          handedOver.add(messages.stream().map(OutboxMessage::id).toList());
          return messages.stream()
              .map(
                  m ->
                      m.id().equals(r1) && handedOver.size() == 1
                          ? PublishResult.retryable("r1 failed")
                          : PublishResult.published())
              .toList();
        };
    TestClock clock = TestClock.at(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    OutboxRelay relay =
        fixture.relay(
            careless, RelayConfig.builder().ordering(Ordering.PER_AGGREGATE).build(), clock);

    assertThat(relay.runOnce()).isEqualTo(4);
    assertThat(handedOver.get(0)).containsExactly(r1, r2, r3, other);
    assertThat(fixture.attempts(r1)).isEqualTo(1);
    assertThat(fixture.attempts(r2)).as("not attempted: no attempt counted").isZero();
    assertThat(fixture.attempts(r3)).isZero();
    assertThat(fixture.admin.pendingCount()).as("r1, r2, r3 wait; other is done").isEqualTo(3);

    clock.advance(Duration.ofMinutes(10));
    assertThat(relay.runOnce()).isEqualTo(3);
    assertThat(handedOver.get(1)).containsExactly(r1, r2, r3);
    assertThat(fixture.admin.pendingCount()).isZero();
  }
}
