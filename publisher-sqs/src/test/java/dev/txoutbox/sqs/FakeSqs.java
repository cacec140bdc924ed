package dev.txoutbox.sqs;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * An SQS client whose answers the test scripts, for failures a real broker will not produce on
 * demand (throttling, lost answers, per-entry server faults). Thread-safe.
 */
public final class FakeSqs implements SqsAsyncClient {

  final List<SendMessageBatchRequest> batchRequests = new CopyOnWriteArrayList<>();
  final List<GetQueueUrlRequest> lookups = new CopyOnWriteArrayList<>();
  public final AtomicInteger closeCalls = new AtomicInteger();

  volatile Function<SendMessageBatchRequest, CompletableFuture<SendMessageBatchResponse>> onBatch =
      FakeSqs::acceptAll;
  volatile Function<GetQueueUrlRequest, CompletableFuture<GetQueueUrlResponse>> onLookup =
      r ->
          CompletableFuture.completedFuture(
              GetQueueUrlResponse.builder()
                  .queueUrl("https://sqs.test/000000000000/" + r.queueName())
                  .build());

  /** A response in which every entry succeeded. */
  static CompletableFuture<SendMessageBatchResponse> acceptAll(SendMessageBatchRequest request) {
    return CompletableFuture.completedFuture(
        SendMessageBatchResponse.builder()
            .successful(
                request.entries().stream()
                    .map(
                        e ->
                            SendMessageBatchResultEntry.builder()
                                .id(e.id())
                                .messageId("m-" + e.id())
                                .build())
                    .toList())
            .failed(List.of())
            .build());
  }

  @Override
  public CompletableFuture<SendMessageBatchResponse> sendMessageBatch(
      SendMessageBatchRequest request) {
    batchRequests.add(request);
    return onBatch.apply(request);
  }

  @Override
  public CompletableFuture<GetQueueUrlResponse> getQueueUrl(GetQueueUrlRequest request) {
    lookups.add(request);
    return onLookup.apply(request);
  }

  @Override
  public String serviceName() {
    return "sqs";
  }

  @Override
  public void close() {
    closeCalls.incrementAndGet();
  }
}
