package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InterruptException;

/**
 * Publishes one batch: hands every record to the producer without waiting, then waits for all
 * acknowledgements against one deadline, and reports each message's own outcome. Thread-safe: it
 * keeps no state between batches.
 */
final class BatchSender {

  /** The outcome of one batch: a result per message, and whether the producer must be replaced. */
  record Outcome(List<PublishResult> results, boolean producerBroken) {}

  private final TopicRouter router;
  private final Duration sendTimeout;

  BatchSender(TopicRouter router, Duration sendTimeout) {
    this.router = router;
    this.sendTimeout = sendTimeout;
  }

  Outcome send(Producer<String, byte[]> producer, List<OutboxMessage> messages)
      throws InterruptedException {
    long deadline = System.nanoTime() + sendTimeout.toNanos();
    int size = messages.size();
    PublishResult[] results = new PublishResult[size];
    @SuppressWarnings("unchecked")
    Future<RecordMetadata>[] pending = new Future[size];
    Set<String> timedOutTopics = new HashSet<>();
    boolean broken = false;

    for (int i = 0; i < size; i++) {
      OutboxMessage message = messages.get(i);
      String topic;
      try {
        topic = topic(message);
      } catch (UnroutableException e) {
        results[i] = PublishResult.permanent(e.getMessage(), e.getCause());
        continue;
      }
      if (timedOutTopics.contains(topic)) {
        results[i] =
            PublishResult.retryable(
                "not sent: an earlier send to topic " + topic + " in this batch timed out");
      } else if (System.nanoTime() - deadline >= 0) {
        results[i] = PublishResult.retryable("not sent: sendTimeout " + sendTimeout + " passed");
      } else {
        try {
          pending[i] = producer.send(RecordMapper.toRecord(topic, message));
        } catch (InterruptException e) {
          throw interrupted(e);
        } catch (RuntimeException e) {
          FailureClassifier.Failure failure = FailureClassifier.classify(e);
          results[i] = failure.result();
          broken |= failure.producerBroken();
          if (e instanceof org.apache.kafka.common.errors.TimeoutException) {
            // The producer blocked max.block.ms (metadata or buffer); do not block again.
            timedOutTopics.add(topic);
          }
        }
      }
    }

    for (int i = 0; i < size; i++) {
      if (pending[i] == null) {
        continue;
      }
      try {
        pending[i].get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        results[i] = PublishResult.published();
      } catch (ExecutionException e) {
        FailureClassifier.Failure failure = FailureClassifier.classify(e.getCause());
        results[i] = failure.result();
        broken |= failure.producerBroken();
      } catch (TimeoutException e) {
        results[i] =
            PublishResult.retryable("no acknowledgement within sendTimeout " + sendTimeout);
      }
    }
    return new Outcome(Arrays.asList(results), broken);
  }

  private String topic(OutboxMessage message) throws UnroutableException {
    Optional<String> routed;
    try {
      routed = router.route(message);
    } catch (RuntimeException e) {
      throw new UnroutableException("the topicRouter failed: " + e, e);
    }
    if (routed == null || routed.isEmpty()) {
      throw new UnroutableException(
          "no topic for aggregate type '" + message.aggregateType() + "'", null);
    }
    String problem = TopicNames.problem(routed.get());
    if (problem != null) {
      throw new UnroutableException("invalid topic: " + problem, null);
    }
    return routed.get();
  }

  private static InterruptedException interrupted(InterruptException e) {
    // Kafka re-sets the interrupt flag when it wraps; InterruptedException means "cleared".
    Thread.interrupted();
    InterruptedException interrupted = new InterruptedException(e.getMessage());
    interrupted.initCause(e);
    return interrupted;
  }

  /** A message that has no valid topic: a permanent failure of that message alone. */
  private static final class UnroutableException extends Exception {
    UnroutableException(String message, Throwable cause) {
      super(message, cause, false, false);
    }
  }
}
