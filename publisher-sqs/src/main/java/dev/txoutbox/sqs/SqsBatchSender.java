package dev.txoutbox.sqs;

import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.RunOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
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
 * starts when the previous one has been answered, and the messages of an aggregate that already had
 * an event fail in this lane are not sent ({@link RunOrder}). Thread-safe.
 */
final class SqsBatchSender {

  private static final Logger log = LoggerFactory.getLogger(SqsBatchSender.class);

  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final SqsAsyncClient client;

  SqsBatchSender(SqsAsyncClient client) {
    this.client = client;
  }

  /**
   * Sends {@code lane}, each request once the URL of its queue is known.
   *
   * @param urls the URL of every queue of the lane; never cancelled here
   * @return completes when every message of the lane has an outcome; never fails
   */
  CompletableFuture<Void> sendLane(
      PublishRun run, Map<String, CompletableFuture<String>> urls, List<List<Entry>> lane) {
    return sendFrom(run, urls, lane, 0, new RunOrder());
  }

  private CompletableFuture<Void> sendFrom(
      PublishRun run,
      Map<String, CompletableFuture<String>> urls,
      List<List<Entry>> lane,
      int first,
      RunOrder order) {
    for (int k = first; k < lane.size(); k++) {
      if (run.isOver()) {
        return DONE;
      }
      List<Entry> batch = holdBack(run, lane.get(k), order);
      if (batch.isEmpty()) {
        continue;
      }
      CompletableFuture<Void> sent = send(run, urls.get(batch.get(0).queue()), batch, order);
      if (!sent.isDone()) {
        int following = k + 1;
        return sent.thenCompose(done -> sendFrom(run, urls, lane, following, order));
      }
      // answered at once: carry on in this loop rather than one stack frame deeper
    }
    return DONE;
  }

  /** The entries of {@code batch} that may be sent; the others get their outcome now. */
  private static List<Entry> holdBack(PublishRun run, List<Entry> batch, RunOrder order) {
    return batch.stream()
        .filter(
            e -> {
              PublishResult heldBack = order.heldBack(e.message());
              if (heldBack == null) {
                return true;
              }
              run.complete(e.index(), heldBack);
              return false;
            })
        .toList();
  }

  private CompletableFuture<Void> send(
      PublishRun run, CompletableFuture<String> url, List<Entry> batch, RunOrder order) {
    String queue = batch.get(0).queue();
    return url.thenCompose(queueUrl -> call(run, queueUrl, batch))
        .handle(
            (response, error) -> {
              if (error != null) {
                failed(run, queue, batch, error, order);
              } else {
                record(run, queue, batch, response, order);
              }
              return null;
            });
  }

  private CompletableFuture<SendMessageBatchResponse> call(
      PublishRun run, String queueUrl, List<Entry> batch) {
    if (run.isOver()) { // the URL came after the deadline: the call's results are sealed
      return CompletableFuture.failedFuture(new CancellationException("publish call is over"));
    }
    SendMessageBatchRequest request =
        SendMessageBatchRequest.builder()
            .queueUrl(queueUrl)
            .entries(batch.stream().map(Entry::toRequestEntry).toList())
            .overrideConfiguration(o -> o.apiCallTimeout(run.remaining()))
            .build();
    try {
      return run.track(client.sendMessageBatch(request));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A failed request, or a failed lookup of its queue's URL: all its messages fail alike. */
  private static void failed(
      PublishRun run, String queue, List<Entry> batch, Throwable error, RunOrder order) {
    PublishResult failure = SqsFailureClassifier.ofRequest(queue, error);
    // Per request, so DEBUG: the relay logs failed events and reports an outage once.
    log.debug("SendMessageBatch of {} messages failed: {}", batch.size(), failure.reason());
    batch.forEach(e -> run.complete(e.index(), order.outcome(e.message(), failure)));
  }

  /**
   * Records each entry's outcome in request order, so that an entry SQS took after a failed one of
   * its aggregate in the same request is not reported published.
   */
  private static void record(
      PublishRun run,
      String queue,
      List<Entry> batch,
      SendMessageBatchResponse response,
      RunOrder order) {
    Map<String, PublishResult> byId = new HashMap<>();
    for (SendMessageBatchResultEntry ok : response.successful()) {
      byId.putIfAbsent(ok.id(), PublishResult.published());
    }
    for (BatchResultErrorEntry failure : response.failed()) {
      byId.putIfAbsent(failure.id(), SqsFailureClassifier.ofEntry(queue, failure));
    }
    PublishResult missing =
        PublishResult.retryable("SQS reported no outcome for the message on " + queue);
    for (Entry e : batch) {
      PublishResult own = byId.getOrDefault(e.id(), missing);
      run.complete(e.index(), order.outcome(e.message(), own));
    }
    if (log.isDebugEnabled()) {
      log.debug(
          "SendMessageBatch to {}: {} sent, {} failed",
          queue,
          response.successful().size(),
          response.failed().size());
    }
  }
}
