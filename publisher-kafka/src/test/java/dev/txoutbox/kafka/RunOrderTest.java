package dev.txoutbox.kafka;

import static dev.txoutbox.kafka.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The run-order rule on hand-made results: what becomes of the events after a failure. */
class RunOrderTest {

  private static final PublishResult OK = PublishResult.published();

  @Test
  void afterAFailureTheLaterPublishedEventsOfThatAggregateBecomeRetryable() {
    PublishResult tooLarge = PublishResult.permanent("RecordTooLargeException: too large");
    PublishResult expired = PublishResult.retryable("UnknownServerException: try again");
    List<OutboxMessage> batch =
        List.of(
            message("order", "a"),
            message("order", "b"),
            message("order", "a"),
            message("order", "b"),
            message("order", "a"),
            message("order", "c"),
            message("order", "a"),
            message("order", "b"),
            message("order", "a"));
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
    assertThat(enforced.get(6)).as("a later failure keeps its own reason").isSameAs(expired);
    assertThat(enforced.get(8).reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
  }

  @Test
  void aBrokerUnavailableResultStopsItsRunAndLaterFailuresKeepTheirOwnResult() {
    PublishResult noLeader =
        PublishResult.brokerUnavailable("NotLeaderOrFollowerException: no leader");
    PublishResult expired = PublishResult.brokerUnavailable("TimeoutException: expiring 1 record");
    List<OutboxMessage> batch =
        List.of(
            message("order", "x"),
            message("order", "y"),
            message("order", "x"),
            message("order", "x"),
            message("order", "y"),
            message("order", "x"));
    List<PublishResult> results = List.of(OK, OK, noLeader, OK, OK, expired);

    List<PublishResult> enforced = RunOrder.enforce(batch, results);

    assertThat(enforced)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.PUBLISHED,
            Status.BROKER_UNAVAILABLE,
            Status.RETRYABLE_FAILURE,
            Status.PUBLISHED,
            Status.BROKER_UNAVAILABLE);
    assertThat(enforced.get(3).reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
    assertThat(enforced.get(5)).isSameAs(expired);
  }

  @Test
  void theSameIdUnderAnotherAggregateTypeIsAnotherAggregate() {
    List<OutboxMessage> batch =
        List.of(message("order", "42"), message("invoice", "42"), message("order", "42"));
    List<PublishResult> results = List.of(PublishResult.retryable("failed"), OK, OK);

    assertThat(RunOrder.enforce(batch, results))
        .extracting(PublishResult::status)
        .containsExactly(Status.RETRYABLE_FAILURE, Status.PUBLISHED, Status.RETRYABLE_FAILURE);
  }

  @Test
  void aBatchWithoutFailuresIsLeftAsItIs() {
    List<OutboxMessage> batch =
        List.of(message("order", "a"), message("order", "a"), message("order", "b"));
    List<PublishResult> results = List.of(OK, OK, OK);

    assertThat(RunOrder.enforce(batch, results)).containsExactlyElementsOf(results);
  }

  @Test
  void aFailureRecordedAtHandOverStopsOnlyItsOwnAggregate() {
    RunOrder runs = new RunOrder();
    OutboxMessage failed = message("order", "a");

    runs.failed(failed);

    assertThat(runs.hasFailed(message("order", "a"))).isTrue();
    assertThat(runs.hasFailed(message("order", "b"))).isFalse();
    assertThat(runs.hasFailed(message("invoice", "a"))).isFalse();
  }

  @Test
  void resultsOfAnotherSizeThanTheBatchAreRefused() {
    assertThatThrownBy(() -> RunOrder.enforce(List.of(message("order", "a")), List.of(OK, OK)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("one per message (1) but were 2");
  }
}
