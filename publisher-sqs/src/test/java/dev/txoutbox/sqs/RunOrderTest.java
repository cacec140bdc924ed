package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunOrderTest {

  private static final PublishResult OK = PublishResult.published();

  @Test
  void holdsBackNothingBeforeAFailure() {
    RunOrder order = new RunOrder();
    OutboxMessage first = message("order", "1", "{}");

    assertThat(order.heldBack(first)).isNull();
    assertThat(order.outcome(first, OK)).isSameAs(OK);
    assertThat(order.heldBack(message("order", "1", "{}"))).isNull();
  }

  @Test
  void holdsBackTheLaterEventsOfAFailedAggregateAsRetryable() {
    RunOrder order = new RunOrder();
    OutboxMessage poison = message("order", "1", "{}");
    PublishResult refused = PublishResult.permanent("refused");

    assertThat(order.outcome(poison, refused)).isSameAs(refused);

    PublishResult later = order.heldBack(message("order", "1", "{}"));
    assertThat(later.status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(later.reason()).isEqualTo(RunOrder.NOT_SENT);
  }

  @Test
  void holdsBackBehindAnUnavailableBrokerAtNoAttempt() {
    RunOrder order = new RunOrder();
    order.outcome(message("order", "1", "{}"), PublishResult.brokerUnavailable("down"));

    assertThat(order.heldBack(message("order", "1", "{}")).status())
        .isEqualTo(Status.BROKER_UNAVAILABLE);
  }

  @Test
  void otherAggregatesGoOnEvenWithTheSameIdOfAnotherType() {
    RunOrder order = new RunOrder();
    order.outcome(message("order", "1", "{}"), PublishResult.retryable("later"));

    assertThat(order.heldBack(message("order", "2", "{}"))).isNull();
    assertThat(order.heldBack(message("invoice", "1", "{}"))).isNull();
  }

  @Test
  void theFirstFailureOfAnAggregateDecidesAndLaterOwnFailuresAreKept() {
    RunOrder order = new RunOrder();
    order.outcome(message("order", "1", "{}"), PublishResult.brokerUnavailable("down"));
    PublishResult ownFailure = PublishResult.permanent("refused");

    assertThat(order.outcome(message("order", "1", "{}"), ownFailure)).isSameAs(ownFailure);
    assertThat(order.heldBack(message("order", "1", "{}")).status())
        .as("still held back as the first failure says")
        .isEqualTo(Status.BROKER_UNAVAILABLE);
  }

  @Test
  void aPublicationAfterAFailureOfItsAggregateIsNotReported() {
    RunOrder order = new RunOrder();
    order.outcome(message("order", "1", "{}"), PublishResult.permanent("refused"));

    PublishResult reported = order.outcome(message("order", "1", "{}"), OK);

    assertThat(reported.status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(reported.reason()).isEqualTo(RunOrder.NOT_REPORTED);
  }

  @Test
  void enforcingAWholeCallDemotesOnlyPublicationsAfterTheirAggregatesFirstFailure() {
    List<OutboxMessage> messages =
        List.of(
            message("order", "a", "{}"),
            message("order", "b", "{}"),
            message("order", "a", "{}"),
            message("order", "b", "{}"),
            message("order", "a", "{}"),
            message("order", "b", "{}"));
    List<PublishResult> results =
        List.of(
            OK,
            PublishResult.brokerUnavailable("no acknowledgement"),
            PublishResult.retryable("internal error"),
            OK,
            OK,
            PublishResult.brokerUnavailable("no acknowledgement"));

    assertThat(RunOrder.enforce(messages, results))
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.BROKER_UNAVAILABLE,
            Status.RETRYABLE_FAILURE,
            Status.BROKER_UNAVAILABLE,
            Status.RETRYABLE_FAILURE,
            Status.BROKER_UNAVAILABLE);
    assertThat(RunOrder.enforce(messages, results))
        .extracting(PublishResult::reason)
        .containsExactly(
            null,
            "no acknowledgement",
            "internal error",
            RunOrder.NOT_REPORTED,
            RunOrder.NOT_REPORTED,
            "no acknowledgement");
  }
}
