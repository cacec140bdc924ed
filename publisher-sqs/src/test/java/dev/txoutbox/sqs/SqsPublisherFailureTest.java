package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.net.ConnectException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/** How SqsPublisher reports failures a real broker does not produce on demand. */
class SqsPublisherFailureTest {

  private static final String STANDARD_URL = "https://sqs.test/000000000000/events";
  private static final String FIFO_URL = "https://sqs.test/000000000000/events.fifo";

  private final FakeSqs sqs = new FakeSqs();

  private SqsPublisher publisher(String queue) {
    return SqsPublisher.builder().client(sqs).route("t", queue).build();
  }

  private static List<OutboxMessage> messages(int count, String aggregateId) {
    List<OutboxMessage> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(message("t", aggregateId, "{\"i\":" + i + "}"));
    }
    return list;
  }

  @Test
  void anEntryFailureThatIsNotTheSendersFaultIsRetryable() throws Exception {
    sqs.onBatch =
        request ->
            CompletableFuture.completedFuture(
                SendMessageBatchResponse.builder()
                    .successful(SendMessageBatchResultEntry.builder().id("0").build())
                    .failed(
                        BatchResultErrorEntry.builder()
                            .id("1")
                            .senderFault(false)
                            .code("InternalError")
                            .message("try again")
                            .build(),
                        BatchResultErrorEntry.builder()
                            .id("2")
                            .senderFault(true)
                            .code("InvalidParameterValue")
                            .build())
                    .build());

    List<PublishResult> results = publisher(STANDARD_URL).publish(messages(3, "a"));

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(Status.PUBLISHED, Status.RETRYABLE_FAILURE, Status.PERMANENT_FAILURE);
    assertThat(results.get(1).reason()).contains("InternalError: try again");
  }

  @Test
  void aNetworkErrorFailsOnlyItsOwnRequestsMessagesAsBrokerUnavailable() throws Exception {
    SdkClientException refused =
        SdkClientException.builder()
            .message("Unable to execute HTTP request: Connection refused")
            .cause(new ConnectException("Connection refused"))
            .build();
    sqs.onBatch =
        request ->
            request.entries().get(0).id().equals("0")
                ? CompletableFuture.failedFuture(refused)
                : FakeSqs.acceptAll(request);

    List<PublishResult> results = publisher(STANDARD_URL).publish(messages(15, "a"));

    assertThat(results.subList(0, 10))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("Connection refused");
              assertThat(r.cause()).isSameAs(refused);
            });
    assertThat(results.subList(10, 15)).allMatch(PublishResult::isPublished);
  }

  @Test
  void aQueueThatNoLongerExistsIsAPermanentFailure() throws Exception {
    sqs.onBatch = request -> CompletableFuture.failedFuture(SqsErrors.queueDoesNotExist());

    List<PublishResult> results = publisher(STANDARD_URL).publish(messages(2, "a"));

    assertThat(results).extracting(PublishResult::status).containsOnly(Status.PERMANENT_FAILURE);
    assertThat(results.get(0).reason()).contains(STANDARD_URL, "NonExistentQueue");
  }

  @Test
  void deniedAccessIsAPermanentFailure() throws Exception {
    sqs.onBatch =
        request -> CompletableFuture.failedFuture(SqsErrors.serviceError("AccessDenied", 403));

    assertThat(publisher(STANDARD_URL).publish(messages(1, "a")))
        .extracting(PublishResult::status)
        .containsOnly(Status.PERMANENT_FAILURE);
  }

  @Test
  void anEntryMissingFromTheResponseIsRetryable() throws Exception {
    sqs.onBatch =
        request ->
            CompletableFuture.completedFuture(
                SendMessageBatchResponse.builder()
                    .successful(SendMessageBatchResultEntry.builder().id("0").build())
                    .build());

    List<PublishResult> results = publisher(STANDARD_URL).publish(messages(2, "a"));

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results.get(1).reason()).contains("no outcome");
  }

  @Test
  void aRequestThatIsNeverAnsweredIsBrokerUnavailableAfterTheRequestTimeoutAndIsCancelled()
      throws Exception {
    List<CompletableFuture<SendMessageBatchResponse>> pending = new CopyOnWriteArrayList<>();
    sqs.onBatch =
        request -> {
          CompletableFuture<SendMessageBatchResponse> never = new CompletableFuture<>();
          pending.add(never);
          return never;
        };
    SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs)
            .route("t", STANDARD_URL)
            .requestTimeout(Duration.ofMillis(200))
            .build();

    List<PublishResult> results = publisher.publish(messages(3, "a"));

    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("request timeout of PT0.2S");
            });
    assertThat(pending).singleElement().matches(CompletableFuture::isCancelled);
    assertThat(sqs.batchRequests.get(0).overrideConfiguration().orElseThrow().apiCallTimeout())
        .hasValueSatisfying(
            t -> assertThat(t).isPositive().isLessThanOrEqualTo(Duration.ofMillis(200)));
  }

  @Test
  void sendsEveryRequestOfAStandardQueueAtOnce() throws Exception {
    List<CompletableFuture<SendMessageBatchResponse>> answers = new CopyOnWriteArrayList<>();
    sqs.onBatch =
        request -> {
          CompletableFuture<SendMessageBatchResponse> answer =
              new CompletableFuture<SendMessageBatchResponse>();
          answers.add(answer);
          return answer.thenCompose(ignored -> FakeSqs.acceptAll(request));
        };
    SqsPublisher publisher = publisher(STANDARD_URL);
    CompletableFuture<List<PublishResult>> results =
        publishInBackground(publisher, messages(30, "a"));

    // all three requests are out while none has been answered
    await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == 3);
    answers.forEach(a -> a.complete(null));

    assertThat(results.get()).hasSize(30).allMatch(PublishResult::isPublished);
  }

  @Test
  void sendsAFifoGroupsRequestsOneAfterTheOther() throws Exception {
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
        publishInBackground(publisher(FIFO_URL), messages(25, "one-group"));

    for (int sent = 1; sent <= 3; sent++) {
      int expected = sent;
      await().atMost(Duration.ofSeconds(10)).until(() -> answers.size() == expected);
      answers.get(sent - 1).complete(null);
    }

    assertThat(results.get()).hasSize(25).allMatch(PublishResult::isPublished);
    assertThat(previousAnsweredAtSend).containsExactly(true, true, true);
    assertThat(sqs.batchRequests)
        .flatExtracting(SendMessageBatchRequest::entries)
        .extracting(e -> Integer.parseInt(e.id()))
        .isSorted()
        .hasSize(25);
  }

  @Test
  void holdsBackTheRestOfAFifoGroupAfterAFailedRequestWhileOtherGroupsGoOn() throws Exception {
    sqs.onBatch =
        request ->
            request.entries().get(0).messageGroupId().equals("g")
                ? CompletableFuture.failedFuture(SdkClientException.create("timeout"))
                : FakeSqs.acceptAll(request);
    List<OutboxMessage> batch = new ArrayList<>(messages(15, "g"));
    batch.addAll(messages(3, "h"));

    List<PublishResult> results = publisher(FIFO_URL).publish(batch);

    assertThat(results.subList(0, 10))
        .allSatisfy(r -> assertThat(r.reason()).contains("SQS request to " + FIFO_URL + " failed"));
    assertThat(results.subList(10, 15))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.RETRYABLE_FAILURE);
              assertThat(r.reason()).contains("held back to keep FIFO order", "'g'");
            });
    assertThat(results.subList(15, 18)).allMatch(PublishResult::isPublished);
    // group g's second request was never sent
    assertThat(sqs.batchRequests).hasSize(2);
  }

  @Test
  void theRestOfAFifoGroupHeldBackBehindAnUnavailableBrokerCostsNoAttemptEither() throws Exception {
    sqs.onBatch =
        request ->
            CompletableFuture.failedFuture(SqsErrors.serviceError("ServiceUnavailable", 503));

    List<PublishResult> results = publisher(FIFO_URL).publish(messages(15, "g"));

    assertThat(results).extracting(PublishResult::status).containsOnly(Status.BROKER_UNAVAILABLE);
    assertThat(results.subList(10, 15))
        .allSatisfy(r -> assertThat(r.reason()).contains("held back to keep FIFO order"));
    assertThat(sqs.batchRequests).hasSize(1);
  }

  @Test
  void holdsBackTheRestOfAFifoGroupAfterOneOfItsEntriesFailed() throws Exception {
    sqs.onBatch =
        request -> {
          if (!request.entries().get(0).id().equals("0")) {
            return FakeSqs.acceptAll(request);
          }
          return CompletableFuture.completedFuture(
              SendMessageBatchResponse.builder()
                  .successful(
                      request.entries().stream()
                          .filter(e -> !e.id().equals("4"))
                          .map(e -> SendMessageBatchResultEntry.builder().id(e.id()).build())
                          .toList())
                  .failed(
                      BatchResultErrorEntry.builder()
                          .id("4")
                          .senderFault(false)
                          .code("ServiceUnavailable")
                          .build())
                  .build());
        };

    List<PublishResult> results = publisher(FIFO_URL).publish(messages(12, "g"));

    assertThat(results.get(4).status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results.subList(10, 12))
        .allSatisfy(r -> assertThat(r.reason()).contains("held back to keep FIFO order"));
    assertThat(sqs.batchRequests).hasSize(1);
  }

  @Test
  void aPermanentlyRefusedFifoEntryHoldsNothingBack() throws Exception {
    sqs.onBatch =
        request -> {
          if (!request.entries().get(0).id().equals("0")) {
            return FakeSqs.acceptAll(request);
          }
          return CompletableFuture.completedFuture(
              SendMessageBatchResponse.builder()
                  .successful(
                      request.entries().stream()
                          .filter(e -> !e.id().equals("4"))
                          .map(e -> SendMessageBatchResultEntry.builder().id(e.id()).build())
                          .toList())
                  .failed(
                      BatchResultErrorEntry.builder()
                          .id("4")
                          .senderFault(true)
                          .code("InvalidParameterValue")
                          .build())
                  .build());
        };

    List<PublishResult> results = publisher(FIFO_URL).publish(messages(12, "g"));

    assertThat(results.get(4).isPermanent()).isTrue();
    assertThat(results.subList(10, 12)).allMatch(PublishResult::isPublished);
    assertThat(sqs.batchRequests).hasSize(2);
  }

  @Test
  void aFailedQueueLookupIsRetryableAndAskedAgainNextTime() throws Exception {
    sqs.onLookup = request -> CompletableFuture.failedFuture(SdkClientException.create("dns"));
    SqsPublisher publisher = publisher("events");

    assertThat(publisher.publish(messages(1, "a")))
        .extracting(PublishResult::status)
        .containsExactly(Status.RETRYABLE_FAILURE);

    sqs.onLookup = new FakeSqs().onLookup;
    assertThat(publisher.publish(messages(1, "a"))).allMatch(PublishResult::isPublished);
    assertThat(publisher.publish(messages(1, "a"))).allMatch(PublishResult::isPublished);

    assertThat(sqs.lookups).hasSize(2);
    assertThat(sqs.batchRequests)
        .extracting(SendMessageBatchRequest::queueUrl)
        .containsOnly("https://sqs.test/000000000000/events");
  }

  @Test
  void aRouterThatThrowsFailsOnlyThatMessageForGood() throws Exception {
    SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs)
            .router(
                m -> {
                  if (m.aggregateId().equals("boom")) {
                    throw new IllegalStateException("no route for boom");
                  }
                  return Optional.of(STANDARD_URL);
                })
            .build();

    List<PublishResult> results =
        publisher.publish(List.of(message("t", "boom", "{}"), message("t", "fine", "{}")));

    assertThat(results.get(0).isPermanent()).isTrue();
    assertThat(results.get(0).reason()).contains("no route for boom");
    assertThat(results.get(1).isPublished()).isTrue();
  }

  @Test
  void interruptingAPublishThrowsAndCancelsTheRequestsInFlight() throws Exception {
    CompletableFuture<SendMessageBatchResponse> never = new CompletableFuture<>();
    sqs.onBatch = request -> never;
    SqsPublisher publisher = publisher(STANDARD_URL);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                publisher.publish(messages(1, "a"));
              } catch (Throwable t) {
                thrown.set(t);
              }
            });
    caller.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> sqs.batchRequests.size() == 1);

    caller.interrupt();
    caller.join(Duration.ofSeconds(10).toMillis());

    assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    assertThat(never).isCancelled();
  }

  @Test
  void closesTheClientOnlyWhenToldToAndOnlyOnce() {
    SqsPublisher borrowing = publisher(STANDARD_URL);
    borrowing.close();
    assertThat(sqs.closeCalls).hasValue(0);

    SqsPublisher owning =
        SqsPublisher.builder().client(sqs).route("t", STANDARD_URL).closeClient(true).build();
    owning.close();
    owning.close();
    assertThat(sqs.closeCalls).hasValue(1);
  }

  @Test
  void refusesToPublishAfterClose() {
    SqsPublisher publisher = publisher(STANDARD_URL);
    publisher.close();

    assertThatThrownBy(() -> publisher.publish(messages(1, "a")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
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
