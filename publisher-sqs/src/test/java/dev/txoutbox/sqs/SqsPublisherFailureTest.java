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
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/** How SqsPublisher reports failures a real broker does not produce on demand. */
class SqsPublisherFailureTest {

  private static final String STANDARD_URL = "https://sqs.test/000000000000/events";

  private final FakeSqs sqs = new FakeSqs();

  private SqsPublisher publisher(String queue) {
    return SqsPublisher.builder().client(sqs).route("t", queue).build();
  }

  private static List<OutboxMessage> messages(int count, String aggregateId) {
    return Messages.ofAggregate("t", aggregateId, count);
  }

  private static List<OutboxMessage> distinct(int count) {
    return Messages.ofDistinctAggregates("t", count);
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

    List<PublishResult> results = publisher(STANDARD_URL).publish(distinct(3));

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

    List<PublishResult> results = publisher(STANDARD_URL).publish(distinct(15));

    assertThat(sqs.batchRequests).hasSize(2);
    Set<Integer> failedRequest =
        sqs.batchRequests.stream()
            .filter(r -> r.entries().get(0).id().equals("0"))
            .flatMap(r -> r.entries().stream())
            .map(e -> Integer.parseInt(e.id()))
            .collect(Collectors.toSet());
    for (int i = 0; i < results.size(); i++) {
      PublishResult r = results.get(i);
      if (failedRequest.contains(i)) {
        assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
        assertThat(r.reason()).contains("Connection refused");
        assertThat(r.cause()).isSameAs(refused);
      } else {
        assertThat(r.isPublished()).as("message %d, in the other request", i).isTrue();
      }
    }
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
            .sendTimeout(Duration.ofMillis(200))
            .build();

    List<PublishResult> results = publisher.publish(messages(3, "a"));

    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("send timeout of 200ms");
            });
    assertThat(pending).singleElement().matches(CompletableFuture::isCancelled);
    assertThat(sqs.batchRequests.get(0).overrideConfiguration().orElseThrow().apiCallTimeout())
        .hasValueSatisfying(
            t -> assertThat(t).isPositive().isLessThanOrEqualTo(Duration.ofMillis(200)));
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
    assertThat(results.get(0).reason())
        .startsWith("the SQS queue router failed: ")
        .contains("no route for boom");
    assertThat(results.get(1).isPublished()).isTrue();
  }

  @Test
  void aRouterThatAnswersNullOrABlankQueueFailsOnlyThatMessageForGood() throws Exception {
    SqsPublisher publisher =
        SqsPublisher.builder()
            .client(sqs)
            .router(
                m ->
                    switch (m.aggregateId()) {
                      case "null" -> null;
                      case "blank" -> Optional.of(" ");
                      default -> Optional.of(STANDARD_URL);
                    })
            .build();

    List<PublishResult> results =
        publisher.publish(
            List.of(
                message("t", "null", "{}"), message("t", "blank", "{}"), message("t", "ok", "{}")));

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(Status.PERMANENT_FAILURE, Status.PERMANENT_FAILURE, Status.PUBLISHED);
    assertThat(results.get(0).reason())
        .isEqualTo("the SQS queue router returned null instead of a route");
    assertThat(results.get(1).reason())
        .startsWith("the SQS queue router has no route for aggregate type 't'");
    assertThat(sqs.batchRequests).hasSize(1);
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
}
