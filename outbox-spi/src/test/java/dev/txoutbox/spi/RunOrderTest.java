package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.PublishResult.Status;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The run-order rule on hand-made messages and results: what becomes of events after a failure. */
class RunOrderTest {

  private static final PublishResult OK = PublishResult.published();

  private static final AtomicLong SEQUENCE = new AtomicLong();

  private static OutboxMessage message(String aggregateType, String aggregateId) {
    return OutboxMessage.builder()
        .id(UUID.randomUUID())
        .sequence(SEQUENCE.incrementAndGet())
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(aggregateType + ".changed")
        .payload("{}")
        .createdAt(Instant.EPOCH)
        .attempt(1)
        .build();
  }

  /** One {@code order} message per aggregate id given, in order. */
  private static List<OutboxMessage> orders(String... aggregateIds) {
    List<OutboxMessage> batch = new ArrayList<>();
    for (String id : aggregateIds) {
      batch.add(message("order", id));
    }
    return batch;
  }

  @Test
  void holdsBackNothingBeforeAFailure() {
    RunOrder order = new RunOrder();
    OutboxMessage first = message("order", "1");

    assertThat(order.heldBack(first)).isNull();
    assertThat(order.outcome(first, OK)).isSameAs(OK);
    assertThat(order.heldBack(message("order", "1"))).isNull();
  }

  @Test
  void holdsBackTheLaterEventsOfAFailedAggregateAsRetryable() {
    RunOrder order = new RunOrder();

    order.failed(message("order", "1"), PublishResult.permanent("refused"));

    PublishResult later = order.heldBack(message("order", "1"));
    assertThat(later.status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(later.reason()).isEqualTo(RunOrder.NOT_SENT);
  }

  @Test
  void holdsBackBehindAnUnavailableBrokerAtNoAttempt() {
    RunOrder order = new RunOrder();

    order.failed(message("order", "1"), PublishResult.brokerUnavailable("down"));

    PublishResult later = order.heldBack(message("order", "1"));
    assertThat(later.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(later.reason()).isEqualTo(RunOrder.NOT_SENT);
  }

  @Test
  void aFailureStopsOnlyItsOwnAggregateEvenWithTheSameIdOfAnotherType() {
    RunOrder order = new RunOrder();

    order.failed(message("order", "1"), PublishResult.retryable("later"));

    assertThat(order.heldBack(message("order", "1"))).isNotNull();
    assertThat(order.heldBack(message("order", "2"))).isNull();
    assertThat(order.heldBack(message("invoice", "1"))).isNull();
  }

  @Test
  void theFirstFailureOfAnAggregateDecidesAndLaterOwnFailuresAreKept() {
    RunOrder order = new RunOrder();
    order.outcome(message("order", "1"), PublishResult.brokerUnavailable("down"));
    PublishResult ownFailure = PublishResult.permanent("refused");

    assertThat(order.outcome(message("order", "1"), ownFailure)).isSameAs(ownFailure);
    order.failed(message("order", "1"), PublishResult.retryable("another"));

    assertThat(order.heldBack(message("order", "1")).status())
        .as("still held back as the first failure says")
        .isEqualTo(Status.BROKER_UNAVAILABLE);
  }

  @Test
  void aPublicationAfterAFailureOfItsAggregateIsNotReported() {
    RunOrder order = new RunOrder();
    order.outcome(message("order", "1"), PublishResult.permanent("refused"));

    PublishResult reported = order.outcome(message("order", "1"), OK);

    assertThat(reported.status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(reported.reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
  }

  @Test
  void aPublishedResultIsNoFailureToRecord() {
    RunOrder order = new RunOrder();

    assertThatThrownBy(() -> order.failed(message("order", "1"), OK))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("result must be a failure but was PUBLISHED");
  }

  @Test
  void afterAFailureTheLaterPublishedEventsOfThatAggregateAreNotReportedAndOthersAreUntouched() {
    PublishResult tooLarge = PublishResult.permanent("too large");
    PublishResult expired = PublishResult.retryable("try again");
    List<OutboxMessage> batch = orders("a", "b", "a", "b", "a", "c", "a", "b", "a");
    List<PublishResult> results = List.of(OK, OK, tooLarge, OK, OK, OK, expired, OK, OK);

    List<PublishResult> enforced = RunOrder.enforce(batch, results);

    assertThat(enforced)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.PUBLISHED,
            Status.PERMANENT_FAILURE,
            Status.PUBLISHED,
            Status.RETRYABLE_FAILURE,
            Status.PUBLISHED,
            Status.RETRYABLE_FAILURE,
            Status.PUBLISHED,
            Status.RETRYABLE_FAILURE);
    assertThat(enforced.get(2)).as("the failure itself is kept").isSameAs(tooLarge);
    assertThat(enforced.get(4).reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
    assertThat(enforced.get(6)).as("a later failure keeps its own result").isSameAs(expired);
    assertThat(enforced.get(8).reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
    assertThat(results.get(4)).as("the input is not changed").isSameAs(OK);
  }

  @Test
  void publicationsAfterABrokerUnavailableFailureAreNotReportedAtNoAttempt() {
    List<OutboxMessage> batch = orders("a", "b", "a", "b", "a", "b");
    List<PublishResult> results =
        List.of(
            OK,
            PublishResult.brokerUnavailable("no acknowledgement"),
            PublishResult.retryable("internal error"),
            OK,
            OK,
            PublishResult.brokerUnavailable("no acknowledgement"));

    List<PublishResult> enforced = RunOrder.enforce(batch, results);

    assertThat(enforced)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.BROKER_UNAVAILABLE,
            Status.RETRYABLE_FAILURE,
            Status.BROKER_UNAVAILABLE,
            Status.RETRYABLE_FAILURE,
            Status.BROKER_UNAVAILABLE);
    assertThat(enforced)
        .extracting(PublishResult::reason)
        .containsExactly(
            null,
            "no acknowledgement",
            "internal error",
            RunOrder.SENT_AFTER_FAILURE,
            RunOrder.SENT_AFTER_FAILURE,
            "no acknowledgement");
  }

  @Test
  void aFailureAtTheHeadOfARunStopsTheWholeRun() {
    PublishResult unroutable = PublishResult.permanent("unroutable");

    List<PublishResult> enforced =
        RunOrder.enforce(orders("a", "a", "a"), List.of(unroutable, OK, OK));

    assertThat(enforced.get(0)).isSameAs(unroutable);
    assertThat(enforced.subList(1, 3))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.RETRYABLE_FAILURE);
              assertThat(r.reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
            });
  }

  @Test
  void enforcingTreatsTheSameIdUnderAnotherAggregateTypeAsAnotherAggregate() {
    List<OutboxMessage> batch =
        List.of(message("order", "42"), message("invoice", "42"), message("order", "42"));
    List<PublishResult> results = List.of(PublishResult.retryable("failed"), OK, OK);

    assertThat(RunOrder.enforce(batch, results))
        .extracting(PublishResult::status)
        .containsExactly(Status.RETRYABLE_FAILURE, Status.PUBLISHED, Status.RETRYABLE_FAILURE);
  }

  @Test
  void aBatchWithoutFailuresIsLeftAsItIs() {
    List<PublishResult> results = List.of(OK, OK, OK);

    assertThat(RunOrder.enforce(orders("a", "a", "b"), results)).containsExactlyElementsOf(results);
  }

  @Test
  void theEnforcedResultsAreUnmodifiableAndAnswerContainsNull() {
    List<PublishResult> enforced = RunOrder.enforce(orders("a"), List.of(OK));

    assertThat(enforced.contains(null)).isFalse();
    assertThatThrownBy(() -> enforced.add(OK)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void resultsOfAnotherSizeThanTheBatchAreRefused() {
    assertThatThrownBy(() -> RunOrder.enforce(orders("a"), List.of(OK, OK)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("results must be one per message (1) but were 2");
  }

  @Test
  void aMissingResultIsRefused() {
    List<PublishResult> withNull = new ArrayList<>();
    withNull.add(OK);
    withNull.add(null);

    assertThatThrownBy(() -> RunOrder.enforce(orders("a", "b"), withNull))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("results[1]");
  }
}
