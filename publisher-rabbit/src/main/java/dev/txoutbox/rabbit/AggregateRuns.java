package dev.txoutbox.rabbit;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The aggregates of one batch, each numbered, and the run-order rule of the {@code Publisher}
 * contract: the events of one aggregate (same aggregate type and id) come in sequence order, and
 * once one of them fails, none of the later ones of that aggregate in the batch is reported
 * published. Immutable and thread-safe.
 */
final class AggregateRuns {

  /** The outcome of a later event of a failed run that was held back. */
  static final PublishResult NOT_SENT =
      PublishResult.retryable("not sent: an earlier event of its aggregate failed");

  /**
   * The outcome of a later event of a failed run that the broker took before the failure was known.
   */
  static final PublishResult SENT_AFTER_FAILURE =
      PublishResult.retryable(
          "sent, but an earlier event of its aggregate failed: not reported published, so that"
              + " the aggregate's order holds");

  private record Aggregate(String type, String id) {}

  private final int[] runOf;
  private final int count;

  private AggregateRuns(int[] runOf, int count) {
    this.runOf = runOf;
    this.count = count;
  }

  /** Numbers the aggregates of {@code batch} from 0, in the order they first appear. */
  static AggregateRuns of(List<OutboxMessage> batch) {
    Map<Aggregate, Integer> numbers = new HashMap<>();
    int[] runOf = new int[batch.size()];
    for (int i = 0; i < runOf.length; i++) {
      OutboxMessage message = batch.get(i);
      runOf[i] =
          numbers.computeIfAbsent(
              new Aggregate(message.aggregateType(), message.aggregateId()), a -> numbers.size());
    }
    return new AggregateRuns(runOf, numbers.size());
  }

  /** The number of the aggregate of the message at {@code index} of the batch. */
  int runOf(int index) {
    return runOf[index];
  }

  /** How many messages the batch holds. */
  int size() {
    return runOf.length;
  }

  /** How many aggregates the batch holds. */
  int count() {
    return count;
  }

  /**
   * The batch's results with the run-order rule applied: walking the batch in order, after the
   * first result of an aggregate that is not published, every later result of that aggregate that
   * says published becomes {@link #SENT_AFTER_FAILURE}. Failures keep their own outcome (a broker
   * unavailable stays one); other aggregates are untouched.
   *
   * @param results one outcome per message of the batch, none null; not changed
   * @return one outcome per message, in order; unmodifiable
   * @throws IllegalArgumentException if {@code results} does not have one outcome per message
   */
  List<PublishResult> enforce(PublishResult[] results) {
    if (results.length != runOf.length) {
      throw new IllegalArgumentException(
          "results must have " + runOf.length + " outcomes but had " + results.length);
    }
    PublishResult[] enforced = results.clone();
    BitSet failed = new BitSet(count);
    for (int i = 0; i < enforced.length; i++) {
      int run = runOf[i];
      if (!enforced[i].isPublished()) {
        failed.set(run);
      } else if (failed.get(run)) {
        enforced[i] = SENT_AFTER_FAILURE;
      }
    }
    // Not List.of: callers may ask contains(null), which List.of answers with an exception.
    return Collections.unmodifiableList(Arrays.asList(enforced));
  }
}
