package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The run-order rule of the {@link dev.txoutbox.spi.Publisher} contract: once an event of an
 * aggregate has an outcome other than published, no later event of that aggregate in the batch is
 * sent, and none is reported published. Remembers the first failure of each aggregate among the
 * outcomes it is shown, which must come in input order. Not thread-safe: one instance serves one
 * thread at a time (a publish call's preparation, one lane, the final check).
 */
final class RunOrder {

  /** Why a message was not sent. */
  static final String NOT_SENT = "not sent: an earlier event of its aggregate failed";

  /** Why a message that SQS took is not reported published. */
  static final String NOT_REPORTED =
      "sent, but not reported published: an earlier event of its aggregate failed";

  /** An aggregate: the events with the same type and id keep their order. */
  record Aggregate(String type, String id) {
    static Aggregate of(OutboxMessage message) {
      return new Aggregate(message.aggregateType(), message.aggregateId());
    }
  }

  private final Map<Aggregate, PublishResult> firstFailure = new HashMap<>();

  /**
   * The outcome of {@code message} if an earlier event of its aggregate failed, in which case it
   * must not be sent; {@code null} if it may be sent.
   */
  PublishResult heldBack(OutboxMessage message) {
    PublishResult earlier = firstFailure.get(Aggregate.of(message));
    return earlier == null ? null : following(earlier, NOT_SENT);
  }

  /**
   * The outcome to report for {@code message}, whose own outcome is {@code result}: a publication
   * after an earlier failure of its aggregate is reported as not published. A failure becomes its
   * aggregate's first unless an earlier one is known.
   */
  PublishResult outcome(OutboxMessage message, PublishResult result) {
    Aggregate aggregate = Aggregate.of(message);
    PublishResult earlier = firstFailure.get(aggregate);
    if (earlier != null) {
      return result.isPublished() ? following(earlier, NOT_REPORTED) : result;
    }
    if (!result.isPublished()) {
      firstFailure.put(aggregate, result);
    }
    return result;
  }

  /**
   * Applies the rule to a whole call's {@code results}, one per message of {@code messages}, so
   * that it holds whatever the order in which requests were answered or the deadline sealed them.
   */
  static List<PublishResult> enforce(List<OutboxMessage> messages, List<PublishResult> results) {
    RunOrder order = new RunOrder();
    List<PublishResult> checked = new ArrayList<>(results.size());
    for (int i = 0; i < results.size(); i++) {
      checked.add(order.outcome(messages.get(i), results.get(i)));
    }
    return checked;
  }

  /**
   * The outcome of a message that follows the failed {@code earlier} in its aggregate: broker
   * unavailable if that failure was, since nothing is known to be wrong with either message;
   * retryable otherwise.
   */
  private static PublishResult following(PublishResult earlier, String reason) {
    return earlier.isBrokerUnavailable()
        ? PublishResult.brokerUnavailable(reason)
        : PublishResult.retryable(reason);
  }
}
