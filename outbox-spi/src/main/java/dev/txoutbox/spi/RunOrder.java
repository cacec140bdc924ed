package dev.txoutbox.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The run-order rule of the {@link Publisher} contract, written once for every plugin: once an
 * event of an aggregate (same {@link OutboxMessage#aggregateType()} and {@link
 * OutboxMessage#aggregateId()}) has an outcome other than published, no later event of that
 * aggregate in the batch is sent, and none is reported published.
 *
 * <p>A plugin uses it in two moments:
 *
 * <ul>
 *   <li><b>While sending</b>, one instance per batch (or per lane of a batch) remembers the first
 *       failure of each aggregate it is told of, through {@link #failed(OutboxMessage,
 *       PublishResult)} or {@link #outcome(OutboxMessage, PublishResult)}; before each send, {@link
 *       #heldBack(OutboxMessage)} says whether the message must stay unsent, and what to answer for
 *       it ({@link #NOT_SENT}).
 *   <li><b>After every outcome is in</b>, {@link #enforce(List, List)} walks the batch in order and
 *       makes sure no event that follows a failure of its aggregate is reported published, however
 *       late that failure became known: a message the broker took cannot be recalled, so it is
 *       reported as not published ({@link #SENT_AFTER_FAILURE}).
 * </ul>
 *
 * <p>An event held back or not reported after a failure is answered <em>broker unavailable</em>
 * when its aggregate's first failure was one, since nothing is known to be wrong with either
 * message and neither should cost an attempt; otherwise it is answered <em>retryable</em>. A later
 * failure of its own is kept as it is.
 *
 * <p>Not thread-safe: confine an instance to one thread at a time, or guard it with a lock. {@link
 * #enforce(List, List)} is thread-safe.
 */
public final class RunOrder {

  /** The reason of a later event of a failed aggregate that was not sent. */
  public static final String NOT_SENT = "not sent: an earlier event of its aggregate failed";

  /** The reason of a later event of a failed aggregate that the broker took anyway. */
  public static final String SENT_AFTER_FAILURE =
      "sent, but an earlier event of its aggregate failed: not reported published; it may reach"
          + " the broker twice, and consumers drop duplicates by event id";

  /**
   * An aggregate, the unit of order: the events with the same type and id keep their order.
   * Immutable and thread-safe.
   *
   * @param type the aggregate type
   * @param id the aggregate id
   */
  public record Aggregate(String type, String id) {

    /**
     * @throws NullPointerException if {@code type} or {@code id} is null
     */
    public Aggregate {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(id, "id");
    }

    /** The aggregate {@code message} belongs to. */
    public static Aggregate of(OutboxMessage message) {
      return new Aggregate(message.aggregateType(), message.aggregateId());
    }
  }

  private final Map<Aggregate, PublishResult> firstFailure = new HashMap<>();

  /** A tracker that knows of no failure yet, for one batch (or one lane of a batch). */
  public RunOrder() {}

  /**
   * The outcome to answer for {@code message} without sending it, if an earlier event of its
   * aggregate failed: {@link #NOT_SENT}, broker unavailable if that first failure was, retryable
   * otherwise.
   *
   * @return that outcome, or {@code null} if nothing of its aggregate failed so far and it may be
   *     sent
   * @throws NullPointerException if {@code message} is null
   */
  public @Nullable PublishResult heldBack(OutboxMessage message) {
    PublishResult earlier = firstFailure.get(Aggregate.of(message));
    return earlier == null ? null : following(earlier, NOT_SENT);
  }

  /**
   * Records that {@code message} failed with {@code result}, so that the later events of its
   * aggregate are held back. The first failure recorded for an aggregate is the one that counts.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if {@code result} is published
   */
  public void failed(OutboxMessage message, PublishResult result) {
    Objects.requireNonNull(result, "result");
    if (result.isPublished()) {
      throw new IllegalArgumentException("result must be a failure but was " + result.status());
    }
    firstFailure.putIfAbsent(Aggregate.of(message), result);
  }

  /**
   * The outcome to report for {@code message}, whose own outcome is {@code result}, told in the
   * order of the batch: a publication after an earlier failure of its aggregate becomes {@link
   * #SENT_AFTER_FAILURE}; any other result is kept, and a failure is {@linkplain
   * #failed(OutboxMessage, PublishResult) recorded}.
   *
   * @throws NullPointerException if an argument is null
   */
  public PublishResult outcome(OutboxMessage message, PublishResult result) {
    Objects.requireNonNull(result, "result");
    Aggregate aggregate = Aggregate.of(message);
    PublishResult earlier = firstFailure.get(aggregate);
    if (result.isPublished()) {
      return earlier == null ? result : following(earlier, SENT_AFTER_FAILURE);
    }
    if (earlier == null) {
      firstFailure.put(aggregate, result);
    }
    return result;
  }

  /**
   * The results of a whole batch with the rule applied, whatever the order in which the outcomes
   * became known: walking the batch in order, after the first result of an aggregate that is not
   * published, every later published result of that aggregate becomes {@link #SENT_AFTER_FAILURE}
   * (broker unavailable if that first failure was, retryable otherwise); every other result is
   * kept. Neither list is changed.
   *
   * @param messages the batch, each aggregate's events in ascending sequence
   * @param results one result per message, in the same order
   * @return one result per message, in the order of {@code messages}; unmodifiable, and {@code
   *     contains(null)} answers {@code false} rather than throwing
   * @throws NullPointerException if a list or a result is null
   * @throws IllegalArgumentException if {@code results} is not one per message
   */
  public static List<PublishResult> enforce(
      List<OutboxMessage> messages, List<PublishResult> results) {
    if (messages.size() != results.size()) {
      throw new IllegalArgumentException(
          "results must be one per message (" + messages.size() + ") but were " + results.size());
    }
    RunOrder order = new RunOrder();
    List<PublishResult> enforced = new ArrayList<>(results.size());
    for (int i = 0; i < messages.size(); i++) {
      PublishResult result = Objects.requireNonNull(results.get(i), "results[" + i + "]");
      enforced.add(order.outcome(messages.get(i), result));
    }
    return Collections.unmodifiableList(enforced);
  }

  /**
   * The outcome of a message that follows the failed {@code earlier} in its aggregate: broker
   * unavailable if that failure was, retryable otherwise.
   */
  private static PublishResult following(PublishResult earlier, String reason) {
    return earlier.isBrokerUnavailable()
        ? PublishResult.brokerUnavailable(reason)
        : PublishResult.retryable(reason);
  }
}
