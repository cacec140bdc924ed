package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.RunOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * The run-order rule on scripted answers, on both kinds of queue: one aggregate's requests go one
 * after the other while other aggregates' go at once, and after any failure of an aggregate its
 * later events in the call are neither sent nor reported published.
 */
class SqsPublisherRunOrderTest {

  private static final String STANDARD_URL = "https://sqs.test/000000000000/events";
  private static final String FIFO_URL = "https://sqs.test/000000000000/events.fifo";

  private final FakeSqs sqs = new FakeSqs();

  private SqsPublisher publisher(String queue) {
    return SqsPublisher.builder().client(sqs).route("t", queue).build();
  }

  private static List<OutboxMessage> run(int count, String aggregateId) {
    return Messages.ofAggregate("t", aggregateId, count);
  }

  /** Asserts that every one of {@code results} has {@code status} and exactly {@code reason}. */
  private static void assertEach(List<PublishResult> results, Status status, String reason) {
    assertThat(results)
        .isNotEmpty()
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(status);
              assertThat(r.reason()).isEqualTo(reason);
            });
  }

  private static String aggregateOf(SendMessageBatchRequestEntry entry) {
    return entry.messageAttributes().get(OutboxHeaders.AGGREGATE_ID).stringValue();
  }

  private static Set<String> aggregatesOf(SendMessageBatchRequest request) {
    return request.entries().stream()
        .map(SqsPublisherRunOrderTest::aggregateOf)
        .collect(Collectors.toSet());
  }

  /** A response in which the entries matching {@code refused} failed with {@code code}. */
  private static CompletableFuture<SendMessageBatchResponse> refusing(
      SendMessageBatchRequest request,
      Predicate<SendMessageBatchRequestEntry> refused,
      boolean senderFault,
      String code) {
    return CompletableFuture.completedFuture(
        SendMessageBatchResponse.builder()
            .successful(
                request.entries().stream()
                    .filter(refused.negate())
                    .map(e -> SendMessageBatchResultEntry.builder().id(e.id()).build())
                    .toList())
            .failed(
                request.entries().stream()
                    .filter(refused)
                    .map(
                        e ->
                            BatchResultErrorEntry.builder()
                                .id(e.id())
                                .senderFault(senderFault)
                                .code(code)
                                .build())
                    .toList())
            .build());
  }

  private static List<Integer> sentIndexes(FakeSqs sqs) {
    return sqs.batchRequests.stream()
        .flatMap(r -> r.entries().stream())
        .map(e -> Integer.parseInt(e.id()))
        .toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {STANDARD_URL, FIFO_URL})
  void sendsOneAggregatesRequestsOneAfterTheOther(String queue) throws Exception {
    List<CompletableFuture<SendMessageBatchResponse>> answers = new CopyOnWriteArrayList<>();
    List<Boolean> previousAnsweredAtSend = new CopyOnWriteArrayList<>();
    sqs.onBatch =
        request -> {
          previousAnsweredAtSend.add(answers.stream().allMatch(CompletableFuture::isDone));
          CompletableFuture<SendMessageBatchResponse> answer = new CompletableFuture<>();
          answers.add(answer);
          return answer.thenCompose(ignored -> FakeSqs.acceptAll(request));
        };
    CompletableFuture<List<PublishResult>> results =
        publishInBackground(publisher(queue), run(25, "one"));

    for (int sent = 1; sent <= 3; sent++) {
      int expected = sent;
      await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == expected);
      answers.get(sent - 1).complete(null);
    }

    assertThat(results.get()).hasSize(25).allMatch(PublishResult::isPublished);
    assertThat(previousAnsweredAtSend).containsExactly(true, true, true);
    assertThat(sentIndexes(sqs)).isSorted().hasSize(25);
  }

  @ParameterizedTest
  @ValueSource(strings = {STANDARD_URL, FIFO_URL})
  void sendsTheRequestsOfDistinctAggregatesAtOnce(String queue) throws Exception {
    List<CompletableFuture<SendMessageBatchResponse>> answers = new CopyOnWriteArrayList<>();
    sqs.onBatch =
        request -> {
          CompletableFuture<SendMessageBatchResponse> answer = new CompletableFuture<>();
          answers.add(answer);
          return answer.thenCompose(ignored -> FakeSqs.acceptAll(request));
        };
    CompletableFuture<List<PublishResult>> results =
        publishInBackground(publisher(queue), Messages.ofDistinctAggregates("t", 30));

    // all three requests are out while none has been answered
    await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == 3);
    answers.forEach(a -> a.complete(null));

    assertThat(results.get()).hasSize(30).allMatch(PublishResult::isPublished);
  }

  @ParameterizedTest
  @ValueSource(strings = {STANDARD_URL, FIFO_URL})
  void twoLongRunsGoInParallelEachWaitingForItsOwnPreviousRequest(String queue) throws Exception {
    List<SendMessageBatchRequest> requests = new CopyOnWriteArrayList<>();
    List<CompletableFuture<SendMessageBatchResponse>> answers = new CopyOnWriteArrayList<>();
    List<Boolean> ownPreviousAnsweredAtSend = new CopyOnWriteArrayList<>();
    Object lock = new Object();
    sqs.onBatch =
        request -> {
          CompletableFuture<SendMessageBatchResponse> answer = new CompletableFuture<>();
          synchronized (lock) { // so that answers.get(k) answers requests.get(k)
            boolean answered = true;
            for (int k = 0; k < requests.size(); k++) {
              if (aggregatesOf(requests.get(k)).equals(aggregatesOf(request))) {
                answered &= answers.get(k).isDone();
              }
            }
            ownPreviousAnsweredAtSend.add(answered);
            requests.add(request);
            answers.add(answer);
          }
          return answer.thenCompose(ignored -> FakeSqs.acceptAll(request));
        };
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      batch.add(message("t", "g", "{\"i\":" + i + "}"));
      batch.add(message("t", "h", "{\"i\":" + i + "}"));
    }
    CompletableFuture<List<PublishResult>> results = publishInBackground(publisher(queue), batch);

    // one request of each run is out before either is answered
    await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == 2);
    assertThat(aggregatesOf(requests.get(0))).isNotEqualTo(aggregatesOf(requests.get(1)));
    for (int answered = 0; answered < 4; answered++) {
      int sent = answered + 2;
      await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() >= Math.min(sent, 4));
      answers.get(answered).complete(null);
    }

    assertThat(results.get()).hasSize(40).allMatch(PublishResult::isPublished);
    assertThat(requests).hasSize(4).allMatch(r -> aggregatesOf(r).size() == 1);
    assertThat(ownPreviousAnsweredAtSend).containsOnly(true);
    for (String aggregate : List.of("g", "h")) {
      assertThat(
              requests.stream()
                  .filter(r -> aggregatesOf(r).contains(aggregate))
                  .flatMap(r -> r.entries().stream())
                  .map(e -> Integer.parseInt(e.id())))
          .as("the requests of %s in order", aggregate)
          .isSorted()
          .hasSize(20);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {STANDARD_URL, FIFO_URL})
  void afterAFailedRequestTheRestOfItsAggregateIsNotSentWhileOthersGoOn(String queue)
      throws Exception {
    sqs.onBatch =
        request ->
            aggregatesOf(request).contains("g")
                ? CompletableFuture.failedFuture(SdkClientException.create("refused"))
                : FakeSqs.acceptAll(request);
    List<OutboxMessage> batch = new ArrayList<>(run(15, "g"));
    batch.addAll(run(3, "h"));

    List<PublishResult> results = publisher(queue).publish(batch);

    assertThat(results.subList(0, 10))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.RETRYABLE_FAILURE);
              assertThat(r.reason()).contains("SQS request to " + queue + " failed");
            });
    assertEach(results.subList(10, 15), Status.RETRYABLE_FAILURE, RunOrder.NOT_SENT);
    assertThat(results.subList(15, 18)).allMatch(PublishResult::isPublished);
    // g's second request was never sent
    assertThat(sqs.batchRequests).hasSize(2);
    assertThat(sentIndexes(sqs)).doesNotContain(10, 11, 12, 13, 14);
  }

  @ParameterizedTest
  @ValueSource(strings = {STANDARD_URL, FIFO_URL})
  void theRestOfAnAggregateHeldBackBehindAnUnavailableBrokerCostsNoAttemptEither(String queue)
      throws Exception {
    sqs.onBatch =
        request ->
            CompletableFuture.failedFuture(SqsErrors.serviceError("ServiceUnavailable", 503));

    List<PublishResult> results = publisher(queue).publish(run(15, "g"));

    assertThat(results).extracting(PublishResult::status).containsOnly(Status.BROKER_UNAVAILABLE);
    assertThat(results.subList(10, 15))
        .allSatisfy(r -> assertThat(r.reason()).isEqualTo(RunOrder.NOT_SENT));
    assertThat(sqs.batchRequests).hasSize(1);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void afterAFailedEntryNoLaterEventOfItsAggregateIsReportedPublishedOrSent(boolean senderFault)
      throws Exception {
    // entry 4 fails; SQS still takes 5 to 9 of the same aggregate in the same request
    sqs.onBatch =
        request ->
            refusing(
                request,
                e -> e.id().equals("4"),
                senderFault,
                senderFault ? "InvalidParameterValue" : "InternalError");
    List<OutboxMessage> batch = new ArrayList<>(run(12, "g"));
    batch.add(message("t", "h", "{}"));

    List<PublishResult> results = publisher(FIFO_URL).publish(batch);

    assertThat(results.subList(0, 4)).allMatch(PublishResult::isPublished);
    assertThat(results.get(4).status())
        .isEqualTo(senderFault ? Status.PERMANENT_FAILURE : Status.RETRYABLE_FAILURE);
    assertEach(results.subList(5, 10), Status.RETRYABLE_FAILURE, RunOrder.SENT_AFTER_FAILURE);
    assertEach(results.subList(10, 12), Status.RETRYABLE_FAILURE, RunOrder.NOT_SENT);
    assertThat(results.get(12).isPublished()).as("another aggregate").isTrue();
    assertThat(sentIndexes(sqs)).doesNotContain(10, 11).contains(12);
  }

  @Test
  void aFailureFoundBeforeSendingHoldsBackTheRestOfItsAggregate() throws Exception {
    List<OutboxMessage> batch =
        List.of(
            message("t", "g", "{\"ok\":1}"),
            message("t", "g", "{\"bad\":\"\uffff\"}"),
            message("t", "h", "{\"ok\":2}"),
            message("t", "g", "{\"ok\":3}"),
            message("stray", "g", "{\"no\":\"queue\"}"),
            message("stray", "g", "{\"no\":\"queue\"}"));

    List<PublishResult> results = publisher(FIFO_URL).publish(batch);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.PERMANENT_FAILURE,
            Status.PUBLISHED,
            Status.RETRYABLE_FAILURE,
            Status.PERMANENT_FAILURE,
            Status.RETRYABLE_FAILURE);
    assertThat(results.get(3).reason()).isEqualTo(RunOrder.NOT_SENT);
    assertThat(results.get(4).reason())
        .as("another aggregate type: its own failure")
        .contains("the SQS queue router has no route for aggregate type 'stray'");
    assertThat(results.get(5).reason()).isEqualTo(RunOrder.NOT_SENT);
    assertThat(sentIndexes(sqs)).containsExactly(0, 2);
  }

  @Test
  void anUnansweredRequestHoldsBackTheRestOfItsAggregateAndNothingElse() throws Exception {
    List<CompletableFuture<SendMessageBatchResponse>> unanswered = new CopyOnWriteArrayList<>();
    sqs.onBatch =
        request -> {
          if (!aggregatesOf(request).contains("g")) {
            return FakeSqs.acceptAll(request);
          }
          CompletableFuture<SendMessageBatchResponse> never = new CompletableFuture<>();
          unanswered.add(never);
          return never;
        };
    List<OutboxMessage> batch = new ArrayList<>(run(15, "g"));
    batch.addAll(run(3, "h"));
    SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs)
            .route("t", FIFO_URL)
            .sendTimeout(Duration.ofMillis(300))
            .build();

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results.subList(0, 15))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("send timeout");
            });
    assertThat(results.subList(15, 18)).allMatch(PublishResult::isPublished);
    assertThat(unanswered).singleElement().matches(CompletableFuture::isCancelled);
    assertThat(sentIndexes(sqs)).doesNotContain(10, 11, 12, 13, 14);
  }

  @Test
  void anAggregateRoutedToTwoQueuesIsSentInOrderAndHeldBackAcrossThem() throws Exception {
    String first = "https://sqs.test/000000000000/first";
    String second = "https://sqs.test/000000000000/second.fifo";
    sqs.onBatch =
        request ->
            request.queueUrl().equals(second) && aggregatesOf(request).contains("g")
                ? CompletableFuture.failedFuture(SdkClientException.create("refused"))
                : FakeSqs.acceptAll(request);
    SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs)
            .router(m -> Optional.of(m.payload().contains("second") ? second : first))
            .build();
    List<OutboxMessage> batch =
        List.of(
            message("t", "g", "{\"to\":\"first\"}"),
            message("t", "g", "{\"to\":\"second\"}"),
            message("t", "g", "{\"to\":\"first\"}"),
            message("t", "h", "{\"to\":\"second\"}"));

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED, Status.RETRYABLE_FAILURE, Status.RETRYABLE_FAILURE, Status.PUBLISHED);
    assertThat(results.get(2).reason()).isEqualTo(RunOrder.NOT_SENT);
    assertThat(sentIndexes(sqs)).containsExactlyInAnyOrder(0, 1, 3);
    assertThat(
            sqs.batchRequests.stream()
                .filter(r -> aggregatesOf(r).contains("g"))
                .map(SendMessageBatchRequest::queueUrl))
        .as("g's requests, one after the other")
        .containsExactly(first, second);
  }

  private static CompletableFuture<List<PublishResult>> publishInBackground(
      SqsPublisher publisher, List<OutboxMessage> batch) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return publisher.publish(batch);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
  }
}
