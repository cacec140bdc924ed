package dev.txoutbox.kafka;

import dev.txoutbox.spi.BatchResults;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Routing;
import dev.txoutbox.spi.RunOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Publishes one batch: hands every record to the producer without waiting for acknowledgements,
 * then waits for the producer's own outcome of each record, and reports each message's result.
 *
 * <p>There is no deadline of ours racing the producer. A record handed over is awaited until the
 * producer completes it, which Kafka does within {@code delivery.timeout.ms} (plus a {@linkplain
 * SendLimits#margin() margin}); so a record reported as failed is one the producer has given up on,
 * not one it may still send. The hand-over itself is bounded by {@code max.block.ms} per blocking
 * send: a send that times out waiting for metadata or buffer space stops the hand-over when the
 * cluster did not answer meanwhile, and a second one stops it in any case; every message not handed
 * over then is reported as broker unavailable ({@link BatchResults#fillUnset}), which costs it no
 * attempt. Routing follows the plugins' shared rule ({@link Routing}); a message without a valid
 * topic is a permanent failure of that message alone, even after the hand-over stopped.
 *
 * <p>Each aggregate's events keep their order (see {@link RunOrder}): they are handed over in the
 * batch's order under one key, the aggregate id, so to one partition of the topic the router chose,
 * where the idempotent producer keeps them in order through its retries. Once one of them fails at
 * hand-over, the later ones are not handed over; once one of them is reported failed, the later
 * ones acknowledged are not reported published. Thread-safe: it keeps no state between batches.
 */
final class KafkaBatchSender {

  /** The outcome of one batch: a result per message, and whether the producer must be replaced. */
  record Outcome(List<PublishResult> results, boolean producerBroken) {}

  /** How a routing failure names the router: "the Kafka topic router failed: …". */
  static final String ROUTER_NAME = "Kafka topic router";

  private final KafkaRouter router;
  private final SendLimits limits;

  KafkaBatchSender(KafkaRouter router, SendLimits limits) {
    this.router = router;
    this.limits = limits;
  }

  /**
   * The topic {@link #send} would send {@code message} to, or null if its router names none or a
   * topic Kafka does not allow (then {@code send} fails it permanently). Never throws.
   */
  String topicOf(OutboxMessage message) {
    Routing<String> routing = Routing.route(message, ROUTER_NAME, router::route);
    if (!routing.routed()) {
      return null;
    }
    String topic = routing.destination();
    return TopicNames.problem(topic) == null ? topic : null;
  }

  Outcome send(Producer<String, byte[]> producer, List<OutboxMessage> messages)
      throws InterruptedException {
    Batch batch = new Batch(messages.size());
    String stopped = handOver(producer, messages, batch);
    awaitOutcomes(batch);
    List<PublishResult> results =
        stopped == null
            ? Arrays.asList(batch.results)
            : BatchResults.fillUnset(batch.results, PublishResult.brokerUnavailable(stopped));
    return new Outcome(RunOrder.enforce(messages, results), batch.producerBroken);
  }

  /**
   * Hands the batch to the producer, leaving in it a result or a pending future per message, and
   * nothing for the messages not handed over because the hand-over stopped.
   *
   * @return why the hand-over stopped, the outcome of every message left without one; null if it
   *     went through
   */
  private String handOver(
      Producer<String, byte[]> producer, List<OutboxMessage> messages, Batch batch)
      throws InterruptedException {
    HandOver handOver = new HandOver(producer, batch);
    RunOrder runs = new RunOrder();
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      PublishResult heldBack = runs.heldBack(message);
      if (heldBack != null) {
        batch.results[i] = heldBack;
        continue;
      }
      handOver.send(i, message);
      if (batch.results[i] != null) {
        runs.failed(message, batch.results[i]);
      }
    }
    return handOver.stopped;
  }

  /** The hand-over of one batch: what stops it, and which topics are known to be missing. */
  private final class HandOver {
    private final Producer<String, byte[]> producer;
    private final Batch batch;
    private final long started = System.nanoTime();
    private final Map<String, PublishResult> missingTopics = new HashMap<>();
    private int blockingTimeouts;
    private String stopped;

    HandOver(Producer<String, byte[]> producer, Batch batch) {
      this.producer = producer;
      this.batch = batch;
    }

    /**
     * Hands message {@code i} to the producer, leaving its future in the batch, or, if it has no
     * valid topic or failed at once, its result. Once the hand-over has {@link #stopped}, a message
     * with a valid topic is left without either.
     */
    void send(int i, OutboxMessage message) throws InterruptedException {
      Routing<String> routing = Routing.route(message, ROUTER_NAME, router::route);
      if (!routing.routed()) {
        batch.results[i] = routing.failure();
        return;
      }
      String topic = routing.destination();
      String problem = TopicNames.problem(topic);
      if (problem != null) {
        batch.results[i] = PublishResult.permanent("invalid topic: " + problem);
        return;
      }
      if (stopped == null && System.nanoTime() - started >= limits.handOver().toNanos()) {
        stopped = "not sent: handing this batch to the producer took longer than 2 x max.block.ms";
      }
      if (stopped != null) {
        return;
      }
      PublishResult missing = missingTopics.get(topic);
      if (missing != null) {
        batch.results[i] = missing;
        return;
      }
      long sendStartedMillis = System.currentTimeMillis();
      TimeoutException blocked;
      try {
        Future<RecordMetadata> future = producer.send(KafkaMessageMapper.toRecord(topic, message));
        Throwable failedAtOnce = failureOf(future);
        if (failedAtOnce == null) {
          batch.pending[i] = future;
          batch.handedOverAt[i] = System.nanoTime();
          return;
        }
        if (!(failedAtOnce instanceof TimeoutException timeout)) {
          fail(batch, i, failedAtOnce);
          return;
        }
        blocked = timeout;
      } catch (InterruptException e) {
        throw interrupted(e);
      } catch (TimeoutException e) {
        blocked = e;
      } catch (RuntimeException e) {
        fail(batch, i, e);
        return;
      }
      batch.results[i] = blockingTimeout(producer, topic, blocked, sendStartedMillis);
      blockingTimeouts++;
      if (batch.results[i].isBrokerUnavailable()) {
        stopped = "not sent: the cluster did not answer while an earlier send of this batch waited";
      } else if (blockingTimeouts > 1) {
        stopped = "not sent: two sends of this batch already waited max.block.ms for metadata";
      } else {
        missingTopics.put(
            topic,
            PublishResult.retryable(
                "not sent: topic "
                    + topic
                    + " is not in the cluster's metadata (an earlier event of this batch waited"
                    + " max.block.ms for it)"));
      }
    }
  }

  /**
   * The result of a send that gave up waiting for metadata or buffer space within {@code
   * max.block.ms}. If the cluster answered a metadata request meanwhile, it is reachable and the
   * topic does not exist: a retryable failure of this message (with auto-creation off, create the
   * topic; the event becomes a dead letter after {@code maxAttempts}). Otherwise, and always for a
   * full buffer, the broker is unavailable.
   */
  private static PublishResult blockingTimeout(
      Producer<String, byte[]> producer,
      String topic,
      TimeoutException timeout,
      long sendStartedMillis) {
    String reason = KafkaFailureClassifier.describe(timeout);
    if (!(timeout instanceof BufferExhaustedException)
        && MetadataAge.answeredSince(producer, sendStartedMillis)) {
      return PublishResult.retryable(
          "topic "
              + topic
              + " is not in the cluster's metadata although the cluster answered; does it exist? "
              + reason,
          timeout);
    }
    return PublishResult.brokerUnavailable(reason, timeout);
  }

  /**
   * The failure a send already reported when it returned, if any. Kafka reports some failures as a
   * failed future rather than by throwing: a metadata or buffer wait that exceeded {@code
   * max.block.ms} (a {@link TimeoutException}; a record that was handed over cannot have failed
   * this early with a delivery timeout), a record larger than {@code max.request.size} or {@code
   * buffer.memory}.
   */
  private static Throwable failureOf(Future<RecordMetadata> future) throws InterruptedException {
    if (!future.isDone()) {
      return null;
    }
    try {
      future.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause() == null ? e : e.getCause();
    }
  }

  private void awaitOutcomes(Batch batch) throws InterruptedException {
    long wait = limits.outcomeWait().toNanos();
    for (int i = 0; i < batch.size(); i++) {
      Future<RecordMetadata> future = batch.pending[i];
      if (future == null) {
        continue;
      }
      long remaining = batch.handedOverAt[i] + wait - System.nanoTime();
      try {
        future.get(Math.max(0, remaining), TimeUnit.NANOSECONDS);
        batch.results[i] = PublishResult.published();
      } catch (ExecutionException e) {
        fail(batch, i, e.getCause());
      } catch (java.util.concurrent.TimeoutException e) {
        // Kafka broke its promise to complete the future within delivery.timeout.ms: the producer
        // is stuck, and is replaced so that it cannot deliver this record after we reported it.
        batch.results[i] =
            PublishResult.retryable(
                "the Kafka producer reported no outcome within delivery.timeout.ms + "
                    + limits.margin().toMillis()
                    + " ms");
        batch.producerBroken = true;
      }
    }
  }

  private static InterruptedException interrupted(InterruptException e) {
    // Kafka re-sets the interrupt flag when it wraps; InterruptedException means "cleared".
    Thread.interrupted();
    InterruptedException interrupted = new InterruptedException(e.getMessage());
    interrupted.initCause(e);
    return interrupted;
  }

  private static void fail(Batch batch, int index, Throwable error) {
    KafkaFailureClassifier.Failure failure = KafkaFailureClassifier.classify(error);
    batch.results[index] = failure.result();
    batch.producerBroken |= failure.producerBroken();
  }

  /** The state of one batch in flight: per message a result or a pending future. */
  private static final class Batch {
    final PublishResult[] results;
    final Future<RecordMetadata>[] pending;
    final long[] handedOverAt;
    boolean producerBroken;

    @SuppressWarnings("unchecked")
    Batch(int size) {
      results = new PublishResult[size];
      pending = new Future[size];
      handedOverAt = new long[size];
    }

    int size() {
      return results.length;
    }
  }
}
