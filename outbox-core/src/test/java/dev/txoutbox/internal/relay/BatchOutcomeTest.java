package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.internal.relay.BatchOutcome.Fate;
import dev.txoutbox.internal.relay.RelayStore.Failure;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.TestMessages;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** What becomes of each claimed row given the publisher's results; no database. */
class BatchOutcomeTest {

  private static final OffsetDateTime NOW =
      OffsetDateTime.of(2026, 3, 1, 12, 0, 0, 0, ZoneOffset.UTC);

  /** 1 s doubling to 1 min, no jitter, 3 attempts: delays are exact. */
  private static final RelayConfig CONFIG =
      RelayConfig.builder()
          .maxAttempts(3)
          .backoff(new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(1), 2.0, 0.0))
          .build();

  private static final RandomGenerator NO_JITTER = () -> 0L;

  private long seq;

  private OutboxMessage message(String aggregateId, int attempt) {
    seq++;
    return TestMessages.message()
        .id(new UUID(0, seq))
        .sequence(seq)
        .aggregateId(aggregateId)
        .createdAt(Instant.parse("2026-03-01T11:00:00Z"))
        .attempt(attempt)
        .build();
  }

  private static BatchOutcome outcome(List<OutboxMessage> batch, PublishResult... results) {
    return BatchOutcome.of(batch, List.of(results), CONFIG, NOW, NO_JITTER);
  }

  private static List<UUID> ids(List<OutboxMessage> messages) {
    return messages.stream().map(OutboxMessage::id).toList();
  }

  @Test
  void publishedEventsAreCompletedAndNothingElseHappensToThem() {
    List<OutboxMessage> batch = List.of(message("a", 1), message("b", 4));

    BatchOutcome o = outcome(batch, PublishResult.published(), PublishResult.published());

    assertThat(o.publishedIds()).containsExactlyElementsOf(ids(batch));
    assertThat(o.failures()).isEmpty();
    assertThat(o.unavailableIds()).isEmpty();
    assertThat(o.answered()).isTrue();
    assertThat(o.claimed()).isEqualTo(2);
    assertThat(o.fates()).allMatch(f -> f.attempted() && f.result().isPublished());
  }

  @Test
  void aRetryableFailureIsRetriedAfterTheBackoffOfItsAttempt() {
    List<OutboxMessage> batch = List.of(message("a", 1), message("b", 2));

    BatchOutcome o =
        outcome(batch, PublishResult.retryable("timeout"), PublishResult.retryable("timeout"));

    assertThat(o.publishedIds()).isEmpty();
    assertThat(o.failures())
        .extracting(Failure::retryAfter, Failure::deadLetteredAt, Failure::error)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(NOW.plusSeconds(1), null, "timeout"),
            org.assertj.core.groups.Tuple.tuple(NOW.plusSeconds(2), null, "timeout"));
    assertThat(o.fates())
        .extracting(Fate::delay)
        .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
    assertThat(o.fates()).allMatch(Fate::retried).noneMatch(Fate::deadLettered);
    assertThat(o.answered()).as("a failure of the message is an answer").isTrue();
  }

  @Test
  void aRetryableFailureOfTheLastAttemptAndAPermanentOneAreDeadLetters() {
    List<OutboxMessage> batch = List.of(message("a", 3), message("b", 1));

    BatchOutcome o =
        outcome(
            batch, PublishResult.retryable("still failing"), PublishResult.permanent("too large"));

    assertThat(o.failures())
        .extracting(Failure::id, Failure::retryAfter, Failure::deadLetteredAt, Failure::error)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(batch.get(0).id(), null, NOW, "still failing"),
            org.assertj.core.groups.Tuple.tuple(batch.get(1).id(), null, NOW, "too large"));
    assertThat(o.fates()).allMatch(Fate::deadLettered).noneMatch(Fate::retried);
  }

  @Test
  void brokerUnavailableCostsNoAttemptAndLeavesTheRowAsItWas() {
    List<OutboxMessage> batch = List.of(message("a", 1), message("b", 1));

    BatchOutcome o =
        outcome(
            batch,
            PublishResult.brokerUnavailable("no leader"),
            PublishResult.brokerUnavailable("down"));

    assertThat(o.failures()).as("nothing recorded: no attempt counted").isEmpty();
    assertThat(o.publishedIds()).isEmpty();
    assertThat(o.unavailableIds()).containsExactlyElementsOf(ids(batch));
    assertThat(o.answered()).as("the broker answered no message").isFalse();
    assertThat(o.unavailableReason()).isEqualTo("no leader");
    assertThat(o.fates()).noneMatch(Fate::deadLettered).noneMatch(Fate::retried);
  }

  @Test
  void aBrokerThatTookSomeOfTheBatchAnswered() {
    List<OutboxMessage> batch = List.of(message("a", 1), message("b", 1));

    BatchOutcome o =
        outcome(
            batch, PublishResult.published(), PublishResult.brokerUnavailable("partition away"));

    assertThat(o.answered()).isTrue();
    assertThat(o.publishedIds()).containsExactly(batch.get(0).id());
    assertThat(o.unavailableIds()).containsExactly(batch.get(1).id());
  }

  @Test
  void laterEventsOfAnAggregateAfterOneNotPublishedAreNotAttemptedWhateverTheyReport() {
    OutboxMessage a1 = message("a", 1);
    OutboxMessage b1 = message("b", 1);
    OutboxMessage a2 = message("a", 1);
    OutboxMessage a3 = message("a", 2);
    OutboxMessage b2 = message("b", 1);
    List<OutboxMessage> batch = List.of(a1, b1, a2, a3, b2);

    BatchOutcome o =
        outcome(
            batch,
            PublishResult.retryable("a1 failed"),
            PublishResult.published(),
            PublishResult.published(), // a publisher breaking the contract: a2 after a1 failed
            PublishResult.permanent("would dead-letter a3"),
            PublishResult.published());

    assertThat(o.publishedIds()).containsExactly(b1.id(), b2.id());
    assertThat(o.failures()).extracting(Failure::id).containsExactly(a1.id());
    assertThat(o.unavailableIds()).isEmpty();
    assertThat(o.notAttempted()).isEqualTo(2);
    assertThat(o.fates())
        .filteredOn(f -> !f.attempted())
        .extracting(f -> f.message().id())
        .containsExactly(a2.id(), a3.id());
    assertThat(o.fates())
        .filteredOn(f -> !f.attempted())
        .noneMatch(Fate::deadLettered)
        .noneMatch(Fate::retried);
  }

  @Test
  void anAggregateIsItsTypeAndItsIdTogether() {
    OutboxMessage order = message("7", 1);
    OutboxMessage customer =
        TestMessages.message()
            .id(new UUID(1, 1))
            .sequence(99)
            .aggregateType("customer")
            .aggregateId("7")
            .eventType("customer.created")
            .createdAt(Instant.EPOCH)
            .build();

    BatchOutcome o =
        outcome(List.of(order, customer), PublishResult.retryable("x"), PublishResult.published());

    assertThat(o.publishedIds())
        .as("another type with the same id goes on")
        .containsExactly(customer.id());
  }

  @Test
  void anUnavailableEventStopsTheRestOfItsAggregateToo() {
    OutboxMessage a1 = message("a", 1);
    OutboxMessage a2 = message("a", 1);

    BatchOutcome o =
        outcome(
            List.of(a1, a2), PublishResult.brokerUnavailable("away"), PublishResult.published());

    assertThat(o.publishedIds()).isEmpty();
    assertThat(o.unavailableIds()).containsExactly(a1.id());
    assertThat(o.notAttempted()).isEqualTo(1);
  }

  @Test
  void aWrongSizedResultListFailsEveryMessageRetryablyAndCompletesNone() {
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      batch.add(message("agg-" + i, 1));
    }
    PublisherAnswer answer = PublisherAnswer.of("broken", 5, List.of(PublishResult.published()));

    BatchOutcome o = BatchOutcome.of(batch, answer.results(), CONFIG, NOW, NO_JITTER);

    assertThat(o.publishedIds()).isEmpty();
    assertThat(o.failures())
        .hasSize(5)
        .allMatch(f -> f.retryAfter().equals(NOW.plusSeconds(1)) && f.deadLetteredAt() == null)
        .allMatch(f -> f.error().equals("publisher broken returned 1 results for 5 messages"));
  }

  @Test
  void unreadableRowsCountAsClaimedAndAreRecordedAsFailures() {
    Failure unreadable = new Failure(new UUID(9, 9), null, "unreadable row: bad headers", NOW);
    OutboxMessage ok = message("a", 1);

    BatchOutcome o =
        outcome(List.of(ok), PublishResult.published()).withUnreadable(List.of(unreadable));

    assertThat(o.claimed()).isEqualTo(2);
    assertThat(o.failures()).containsExactly(unreadable);
    assertThat(o.publishedIds()).containsExactly(ok.id());
    assertThat(BatchOutcome.unreadable(List.of(unreadable)).claimed()).isEqualTo(1);
    assertThat(BatchOutcome.EMPTY.claimed()).isZero();
  }

  @Test
  void aReasonRepeatsTheCauseOnlyWhenItDoesNotSayItAlready() {
    OutboxMessage a = message("a", 1);
    OutboxMessage b = message("b", 1);

    BatchOutcome o =
        outcome(
            List.of(a, b),
            PublishResult.retryable("send failed: timeout", new RuntimeException("timeout")),
            PublishResult.retryable("send failed", new IllegalStateException("closed")));

    assertThat(o.failures())
        .extracting(Failure::error)
        .containsExactly(
            "send failed: timeout", "send failed: java.lang.IllegalStateException: closed");
  }
}
