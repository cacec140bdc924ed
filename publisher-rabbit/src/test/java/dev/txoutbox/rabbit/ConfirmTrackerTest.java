package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.RunOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bookkeeping of one batch's confirms, driven directly, without a broker. */
class ConfirmTrackerTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static long deadline() {
    return System.nanoTime() + TIMEOUT.toNanos();
  }

  /** A batch of {@code aggregateIds.length} messages, one per aggregate id given. */
  private static List<OutboxMessage> batch(String... aggregateIds) {
    List<OutboxMessage> batch = new ArrayList<>();
    for (String id : aggregateIds) {
      batch.add(Messages.event("order", id, "order.created", "{}"));
    }
    return batch;
  }

  /** A tracker for a batch of {@code aggregateIds.length} messages, one per aggregate id given. */
  private static ConfirmTracker tracker(boolean unroutableIsPermanent, String... aggregateIds) {
    return new ConfirmTracker(batch(aggregateIds), unroutableIsPermanent);
  }

  /** Four messages of four aggregates, registered with tags from {@code firstTag}. */
  private static ConfirmTracker sentFour(long firstTag, boolean unroutableIsPermanent) {
    ConfirmTracker tracker = tracker(unroutableIsPermanent, "a", "b", "c", "d");
    for (int i = 0; i < 4; i++) {
      tracker.beforePublish(i, firstTag + i, "id-" + i);
    }
    return tracker;
  }

  private static Status[] statuses(ConfirmTracker tracker, int size) {
    PublishResult[] results = new PublishResult[size];
    tracker.copyTo(results);
    return Arrays.stream(results).map(PublishResult::status).toArray(Status[]::new);
  }

  @Test
  void multipleAckSettlesEveryTagUpToIt() throws Exception {
    ConfirmTracker tracker = sentFour(17, false);

    tracker.confirmed(19, true, true);
    tracker.confirmed(20, false, true);

    assertThat(tracker.await(deadline())).isTrue();
    assertThat(statuses(tracker, 4)).containsOnly(Status.PUBLISHED);
  }

  @Test
  void nackIsARetryableFailureOfThatMessageOnly() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);

    tracker.confirmed(2, false, false);
    tracker.confirmed(4, true, true);

    assertThat(tracker.await(deadline())).isTrue();
    assertThat(statuses(tracker, 4))
        .containsExactly(
            Status.PUBLISHED, Status.RETRYABLE_FAILURE, Status.PUBLISHED, Status.PUBLISHED);
  }

  @Test
  void returnedMessageFailsEvenThoughItIsAcked() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);

    tracker.returned("id-1", 312, "NO_ROUTE", "exchange 'x', routing key 'y'");
    tracker.confirmed(4, true, true);

    tracker.await(deadline());
    PublishResult[] results = new PublishResult[4];
    tracker.copyTo(results);
    assertThat(results[1].status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results[1].reason()).contains("312").contains("NO_ROUTE").contains("'y'");
    assertThat(results[0].isPublished()).isTrue();
    assertThat(results[2].isPublished()).isTrue();
  }

  @Test
  void returnedMessageIsPermanentWhenConfigured() throws Exception {
    ConfirmTracker tracker = sentFour(1, true);

    tracker.returned("id-3", 312, "NO_ROUTE", "exchange 'x', routing key 'y'");
    tracker.confirmed(4, true, true);

    tracker.await(deadline());
    assertThat(statuses(tracker, 4)[3]).isEqualTo(Status.PERMANENT_FAILURE);
  }

  @Test
  void unconfirmedMessagesGetTheTimeoutOutcomeWhenTheDeadlinePasses() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);
    tracker.confirmed(2, true, true);

    boolean allConfirmed = tracker.await(System.nanoTime());
    tracker.expire(
        RabbitFailureClassifier.confirmTimedOut(
            Duration.ofMillis(1), "amqp://h", null, tracker.brokerAnswered()));

    assertThat(allConfirmed).isFalse();
    PublishResult[] results = new PublishResult[4];
    tracker.copyTo(results);
    assertThat(results[0].isPublished()).isTrue();
    assertThat(results[1].isPublished()).isTrue();
    assertThat(results[2].status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results[2].reason()).contains("no confirm");
    assertThat(results[3].status()).isEqualTo(Status.RETRYABLE_FAILURE);
  }

  @Test
  void unconfirmedMessagesOfABlockedConnectionAreBrokerUnavailable() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);
    tracker.confirmed(1, false, true);

    tracker.await(System.nanoTime());
    tracker.expire(
        RabbitFailureClassifier.confirmTimedOut(
            Duration.ofMillis(1), "amqp://h", "low on memory", tracker.brokerAnswered()));

    PublishResult[] results = new PublishResult[4];
    tracker.copyTo(results);
    assertThat(results[0].isPublished()).isTrue();
    assertThat(Arrays.asList(results).subList(1, 4))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("blocks publishing", "low on memory");
            });
  }

  @Test
  void lostConnectionMakesEveryUnconfirmedMessageBrokerUnavailableAndWakesTheWaiter()
      throws Exception {
    ConfirmTracker tracker = sentFour(1, false);
    tracker.confirmed(1, false, true);
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return tracker.await(deadline());
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });

    tracker.channelClosed(new ShutdownSignalException(true, false, null, "connection"));

    assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(statuses(tracker, 4))
        .containsExactly(
            Status.PUBLISHED,
            Status.BROKER_UNAVAILABLE,
            Status.BROKER_UNAVAILABLE,
            Status.BROKER_UNAVAILABLE);
  }

  @Test
  void channelClosedByAChannelErrorFailsTheUnconfirmedRetryably() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);
    tracker.confirmed(2, true, true);

    tracker.channelClosed(new ShutdownSignalException(false, false, null, "channel"));

    assertThat(tracker.await(deadline())).isTrue();
    assertThat(statuses(tracker, 4))
        .containsExactly(
            Status.PUBLISHED, Status.PUBLISHED, Status.RETRYABLE_FAILURE, Status.RETRYABLE_FAILURE);
  }

  @Test
  void aMessageRegisteredAfterTheChannelClosedGetsTheClosingOutcome() {
    ConfirmTracker tracker = tracker(false, "a", "b");
    tracker.beforePublish(0, 1, "a");
    tracker.channelClosed(new ShutdownSignalException(true, false, null, "connection"));

    tracker.beforePublish(1, 2, "b");

    assertThat(statuses(tracker, 2)).containsOnly(Status.BROKER_UNAVAILABLE);
  }

  @Test
  void waitingForConfirmsStopsWhenTheThreadIsInterrupted() {
    ConfirmTracker tracker = sentFour(1, false);

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> tracker.await(deadline())).isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void confirmsOfOtherTagsAreIgnored() throws Exception {
    ConfirmTracker tracker = sentFour(10, false);

    tracker.confirmed(9, true, true);
    tracker.confirmed(14, false, false);

    assertThat(tracker.await(System.nanoTime())).isFalse();
    assertThat(tracker.brokerAnswered()).isFalse();
  }

  @Test
  void aBatchTheBrokerAnsweredNothingOfIsBrokerUnavailableAtTheDeadline() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);

    tracker.await(System.nanoTime());
    tracker.expire(
        RabbitFailureClassifier.confirmTimedOut(
            Duration.ofMillis(1), "amqp://h", null, tracker.brokerAnswered()));

    assertThat(statuses(tracker, 4)).containsOnly(Status.BROKER_UNAVAILABLE);
  }

  @Test
  void rejectsDeliveryTagsThatDoNotFollowEachOther() {
    ConfirmTracker tracker = tracker(false, "a", "b");
    tracker.beforePublish(0, 5, "a");

    assertThatThrownBy(() -> tracker.beforePublish(1, 7, "b"))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aReturnedOrNackedMessageHoldsBackItsAggregateAndNoOther() {
    // messages 0 and 2 belong to aggregate a, 1 to b, 3 to c
    List<OutboxMessage> batch = batch("a", "b", "a", "c");
    ConfirmTracker tracker = new ConfirmTracker(batch, true);
    for (int i = 0; i < 4; i++) {
      tracker.beforePublish(i, 1 + i, "id-" + i);
    }

    tracker.confirmed(1, false, true);
    assertThat(tracker.heldBack(batch.get(0))).isNull();
    tracker.returned("id-2", 312, "NO_ROUTE", "exchange 'x', routing key 'y'");
    tracker.confirmed(2, false, false);

    OutboxMessage laterOfA = Messages.event("order", "a", "order.paid", "{}");
    OutboxMessage laterOfB = Messages.event("order", "b", "order.paid", "{}");
    OutboxMessage laterOfC = Messages.event("order", "c", "order.paid", "{}");
    assertThat(tracker.heldBack(laterOfA)).as("a: message 2 returned").isNotNull();
    assertThat(tracker.heldBack(laterOfB)).as("b: message 1 nacked").isNotNull();
    assertThat(tracker.heldBack(laterOfC)).as("c: not answered yet").isNull();
    assertThat(List.of(tracker.heldBack(laterOfA), tracker.heldBack(laterOfB)))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.RETRYABLE_FAILURE);
              assertThat(r.reason()).isEqualTo(RunOrder.NOT_SENT);
            });
  }

  @Test
  void aMessageRefusedBeforeSendingHoldsBackItsAggregate() {
    List<OutboxMessage> batch = batch("a", "b");
    ConfirmTracker tracker = new ConfirmTracker(batch, false);

    tracker.failedBeforeSending(batch.get(0), PublishResult.permanent("too large"));

    assertThat(tracker.heldBack(Messages.event("order", "a", "order.paid", "{}"))).isNotNull();
    assertThat(tracker.heldBack(batch.get(1))).isNull();
  }

  @Test
  void aClosedChannelOrATimeoutHoldsBackNoAggregate() {
    List<OutboxMessage> batch = batch("a", "b", "c", "d");
    ConfirmTracker closed = new ConfirmTracker(batch, false);
    ConfirmTracker expired = new ConfirmTracker(batch, false);
    for (int i = 0; i < 4; i++) {
      closed.beforePublish(i, 1 + i, "id-" + i);
      expired.beforePublish(i, 1 + i, "id-" + i);
    }
    closed.channelClosed(new ShutdownSignalException(false, false, null, "channel"));
    expired.expire(PublishResult.retryable("no confirm"));

    for (OutboxMessage message : batch) {
      assertThat(closed.heldBack(message)).isNull();
      assertThat(expired.heldBack(message)).isNull();
    }
  }
}
