package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The bookkeeping of one batch's confirms, driven directly, without a broker. */
class ConfirmTrackerTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private static long deadline() {
    return System.nanoTime() + TIMEOUT.toNanos();
  }

  private static ConfirmTracker sentFour(long firstTag, boolean unroutableIsPermanent) {
    ConfirmTracker tracker = new ConfirmTracker(4, unroutableIsPermanent);
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

    assertThat(tracker.await(deadline(), TIMEOUT)).isTrue();
    assertThat(statuses(tracker, 4)).containsOnly(Status.PUBLISHED);
  }

  @Test
  void nackIsARetryableFailureOfThatMessageOnly() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);

    tracker.confirmed(2, false, false);
    tracker.confirmed(4, true, true);

    assertThat(tracker.await(deadline(), TIMEOUT)).isTrue();
    assertThat(statuses(tracker, 4))
        .containsExactly(
            Status.PUBLISHED, Status.RETRYABLE_FAILURE, Status.PUBLISHED, Status.PUBLISHED);
  }

  @Test
  void returnedMessageFailsEvenThoughItIsAcked() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);

    tracker.returned("id-1", 312, "NO_ROUTE", "exchange 'x', routing key 'y'");
    tracker.confirmed(4, true, true);

    tracker.await(deadline(), TIMEOUT);
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

    tracker.await(deadline(), TIMEOUT);
    assertThat(statuses(tracker, 4)[3]).isEqualTo(Status.PERMANENT_FAILURE);
  }

  @Test
  void unconfirmedMessagesAreRetryableWhenTheDeadlinePasses() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);
    tracker.confirmed(2, true, true);

    boolean allConfirmed = tracker.await(System.nanoTime(), Duration.ofMillis(1));

    assertThat(allConfirmed).isFalse();
    PublishResult[] results = new PublishResult[4];
    tracker.copyTo(results);
    assertThat(results[0].isPublished()).isTrue();
    assertThat(results[1].isPublished()).isTrue();
    assertThat(results[2].status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results[2].reason()).contains("no confirm");
  }

  @Test
  void closedChannelFailsEveryUnconfirmedMessageAndWakesTheWaiter() throws Exception {
    ConfirmTracker tracker = sentFour(1, false);
    tracker.confirmed(1, false, true);
    CompletableFuture<Boolean> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return tracker.await(deadline(), TIMEOUT);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });

    tracker.channelClosed(new ShutdownSignalException(true, false, null, "test"));

    assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(statuses(tracker, 4))
        .containsExactly(
            Status.PUBLISHED,
            Status.RETRYABLE_FAILURE,
            Status.RETRYABLE_FAILURE,
            Status.RETRYABLE_FAILURE);
  }

  @Test
  void waitingForConfirmsStopsWhenTheThreadIsInterrupted() {
    ConfirmTracker tracker = sentFour(1, false);

    Thread.currentThread().interrupt();
    try {
      assertThatThrownBy(() -> tracker.await(deadline(), TIMEOUT))
          .isInstanceOf(InterruptedException.class);
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void confirmsOfOtherTagsAreIgnored() throws Exception {
    ConfirmTracker tracker = sentFour(10, false);

    tracker.confirmed(9, true, true);
    tracker.confirmed(14, false, false);

    assertThat(tracker.await(System.nanoTime(), Duration.ofMillis(1))).isFalse();
    assertThat(statuses(tracker, 4)).containsOnly(Status.RETRYABLE_FAILURE);
  }

  @Test
  void rejectsDeliveryTagsThatDoNotFollowEachOther() {
    ConfirmTracker tracker = new ConfirmTracker(2, false);
    tracker.beforePublish(0, 5, "a");

    assertThatThrownBy(() -> tracker.beforePublish(1, 7, "b"))
        .isInstanceOf(IllegalStateException.class);
  }
}
