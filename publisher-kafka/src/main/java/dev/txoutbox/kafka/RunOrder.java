package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The run-order rule of the {@link dev.txoutbox.spi.Publisher Publisher} contract for one batch:
 * once an event of an aggregate (same aggregate type and id) has failed, no later event of that
 * aggregate in the batch is sent, nor reported as published.
 *
 * <p>Two halves, one per moment a failure can be known. While the batch is handed to the producer,
 * {@link #failed(OutboxMessage)} records an aggregate whose event failed at once (no route, refused
 * by {@code send()}, a metadata wait that timed out) and {@link #hasFailed(OutboxMessage)} tells
 * the sender to skip the aggregate's later events, answered {@link #NOT_SENT}. After every outcome
 * is in, {@link #enforce(List, List)} turns a later event that the broker acknowledged after an
 * earlier one of its aggregate failed into a retryable failure ({@link #SENT_AFTER_FAILURE}): a
 * record handed over cannot be recalled. Not thread-safe: one instance per batch.
 */
final class RunOrder {

  /** The reason of a later event of a failed aggregate that was not handed to the producer. */
  static final String NOT_SENT = "not sent: an earlier event of its aggregate failed";

  /** The reason of a later event of a failed aggregate that the broker acknowledged anyway. */
  static final String SENT_AFTER_FAILURE =
      "sent, but an earlier event of its aggregate failed: it may reach the topic twice"
          + " (consumers drop duplicates by event id)";

  private final Set<Aggregate> failed = new HashSet<>();

  /** Whether an earlier event of {@code message}'s aggregate failed in this batch. */
  boolean hasFailed(OutboxMessage message) {
    return failed.contains(Aggregate.of(message));
  }

  /** Records that {@code message} failed, so the later events of its aggregate are not sent. */
  void failed(OutboxMessage message) {
    failed.add(Aggregate.of(message));
  }

  /**
   * The results with the rule applied: after the first result of an aggregate that is not
   * published, every later published result of that aggregate becomes a retryable failure; every
   * other result is kept. One result per message, in the order of {@code messages}.
   *
   * @param messages the batch, each aggregate's events in ascending sequence
   * @param results one result per message, in the same order
   * @throws IllegalArgumentException if the two lists differ in size
   */
  static List<PublishResult> enforce(List<OutboxMessage> messages, List<PublishResult> results) {
    if (messages.size() != results.size()) {
      throw new IllegalArgumentException(
          "results must be one per message (" + messages.size() + ") but were " + results.size());
    }
    RunOrder order = new RunOrder();
    List<PublishResult> enforced = new ArrayList<>(results.size());
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      PublishResult result = results.get(i);
      if (!result.isPublished()) {
        order.failed(message);
      } else if (order.hasFailed(message)) {
        result = PublishResult.retryable(SENT_AFTER_FAILURE);
      }
      enforced.add(result);
    }
    return enforced;
  }

  /** An aggregate, the unit of order: its type and its id. */
  private record Aggregate(String type, String id) {
    static Aggregate of(OutboxMessage message) {
      return new Aggregate(message.aggregateType(), message.aggregateId());
    }
  }
}
