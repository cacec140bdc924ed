package dev.txoutbox.sqs;

import dev.txoutbox.spi.PublishResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;

/**
 * Sends the lanes of one publish call and records each message's outcome. Within a lane, a request
 * starts when the previous one has completed, and messages whose FIFO group already had a message
 * fail in this lane are held back (a retryable failure) so that the group's order holds.
 * Thread-safe.
 */
final class BatchSender {

  private static final Logger log = LoggerFactory.getLogger(BatchSender.class);

  private final SqsAsyncClient client;

  BatchSender(SqsAsyncClient client) {
    this.client = client;
  }

  /**
   * Sends {@code lane} to {@code queue} once its URL is known.
   *
   * @return completes when every message of the lane has an outcome; never fails
   */
  CompletableFuture<Void> sendLane(
      PublishRun run, String queue, CompletableFuture<String> url, List<List<Entry>> lane) {
    return url.handle(
            (queueUrl, error) -> {
              if (error != null) {
                PublishResult failure = Failures.ofRequest(queue, error);
                lane.forEach(batch -> batch.forEach(e -> run.complete(e.index(), failure)));
                return CompletableFuture.<Void>completedFuture(null);
              }
              return sendFrom(run, queue, queueUrl, lane, 0, new HashMap<>());
            })
        .thenCompose(next -> next);
  }

  private CompletableFuture<Void> sendFrom(
      PublishRun run,
      String queue,
      String queueUrl,
      List<List<Entry>> lane,
      int first,
      Map<String, PublishResult> failedGroups) {
    for (int k = first; k < lane.size(); k++) {
      if (run.isOver()) {
        return CompletableFuture.completedFuture(null);
      }
      List<Entry> batch = holdBackFailedGroups(run, lane.get(k), failedGroups);
      if (!batch.isEmpty()) {
        int following = k + 1;
        return send(run, queue, queueUrl, batch, failedGroups)
            .thenCompose(done -> sendFrom(run, queue, queueUrl, lane, following, failedGroups));
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  private static List<Entry> holdBackFailedGroups(
      PublishRun run, List<Entry> batch, Map<String, PublishResult> failedGroups) {
    if (failedGroups.isEmpty()) {
      return batch;
    }
    return batch.stream()
        .filter(
            e -> {
              PublishResult earlier = e.groupId() == null ? null : failedGroups.get(e.groupId());
              if (earlier == null) {
                return true;
              }
              run.complete(e.index(), heldBack(e.groupId(), earlier));
              return false;
            })
        .toList();
  }

  /**
   * The outcome of a message held back because an earlier one of its group failed: broker
   * unavailable if that failure was, since nothing is wrong with either message; retryable
   * otherwise.
   */
  private static PublishResult heldBack(String groupId, PublishResult earlier) {
    String reason =
        "held back to keep FIFO order: an earlier message of group '"
            + groupId
            + "' in the same batch was not published";
    return earlier.isBrokerUnavailable()
        ? PublishResult.brokerUnavailable(reason)
        : PublishResult.retryable(reason);
  }

  private CompletableFuture<Void> send(
      PublishRun run,
      String queue,
      String queueUrl,
      List<Entry> batch,
      Map<String, PublishResult> failedGroups) {
    SendMessageBatchRequest request =
        SendMessageBatchRequest.builder()
            .queueUrl(queueUrl)
            .entries(batch.stream().map(Entry::toRequestEntry).toList())
            .overrideConfiguration(o -> o.apiCallTimeout(run.remaining()))
            .build();
    CompletableFuture<SendMessageBatchResponse> call;
    try {
      call = run.track(client.sendMessageBatch(request));
    } catch (RuntimeException e) {
      call = CompletableFuture.failedFuture(e);
    }
    return call.handle(
        (response, error) -> {
          if (error != null) {
            failed(run, queue, batch, error, failedGroups);
          } else {
            record(run, queue, batch, response, failedGroups);
          }
          return null;
        });
  }

  private static void failed(
      PublishRun run,
      String queue,
      List<Entry> batch,
      Throwable error,
      Map<String, PublishResult> failedGroups) {
    PublishResult failure = Failures.ofRequest(queue, error);
    // Per request, so DEBUG: the relay logs failed events and reports an outage once.
    log.debug("SendMessageBatch of {} messages failed: {}", batch.size(), failure.reason());
    batch.forEach(e -> outcome(run, e, failure, failedGroups));
  }

  /**
   * Records a failure; after a retryable one, the rest of the message's FIFO group is held back. A
   * permanent failure holds nothing back: its event becomes a dead letter and will not come first
   * however long its successors wait.
   */
  private static void outcome(
      PublishRun run, Entry e, PublishResult failure, Map<String, PublishResult> failedGroups) {
    run.complete(e.index(), failure);
    if (e.groupId() != null && !failure.isPermanent()) {
      failedGroups.putIfAbsent(e.groupId(), failure);
    }
  }

  private static void record(
      PublishRun run,
      String queue,
      List<Entry> batch,
      SendMessageBatchResponse response,
      Map<String, PublishResult> failedGroups) {
    Map<String, Entry> byId = new HashMap<>();
    batch.forEach(e -> byId.put(e.id(), e));
    for (SendMessageBatchResultEntry ok : response.successful()) {
      Entry e = byId.remove(ok.id());
      if (e != null) {
        run.complete(e.index(), PublishResult.published());
      }
    }
    for (BatchResultErrorEntry failure : response.failed()) {
      Entry e = byId.remove(failure.id());
      if (e != null) {
        outcome(run, e, Failures.ofEntry(queue, failure), failedGroups);
      }
    }
    PublishResult missing =
        PublishResult.retryable("SQS reported no outcome for the message on " + queue);
    byId.values().forEach(e -> outcome(run, e, missing, failedGroups));
    if (log.isDebugEnabled()) {
      log.debug(
          "SendMessageBatch to {}: {} sent, {} failed",
          queue,
          response.successful().size(),
          response.failed().size());
    }
  }
}
