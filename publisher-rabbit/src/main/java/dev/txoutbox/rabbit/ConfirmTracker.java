package dev.txoutbox.rabbit;

import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.RunOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The outcomes of one batch sent on one confirm-mode channel. The publishing thread registers each
 * message just before sending it; the connection's thread reports returns, confirms and the
 * channel's closing; the publishing thread then waits until every message is settled or the
 * deadline passes. Thread-safe.
 *
 * <p>RabbitMQ sends a {@code basic.return} for an unroutable mandatory message <em>before</em> it
 * acks that message, so a return marks the message and the later ack settles it as a failure.
 * Returns carry no delivery tag: they are matched by {@code message-id}, the event id.
 *
 * <p>It also keeps the batch's {@link RunOrder}: it tells the publishing thread which aggregates
 * already have a message that failed on its own (returned or nacked, or refused before sending), so
 * that the later messages of that aggregate are not sent.
 */
final class ConfirmTracker {

  private final boolean unroutableIsPermanent;
  private final List<OutboxMessage> batch;
  private final RunOrder runOrder = new RunOrder();
  private final int[] batchIndex;
  private final PublishResult[] outcome;
  private final String[] returnedReason;
  private final Map<String, List<Integer>> positionsByMessageId = new HashMap<>();
  private long firstTag = -1;
  private int sent;
  private int settled;
  private int lowestUnsettled;
  private PublishResult closedOutcome;
  private boolean brokerAnswered;

  /**
   * @param batch the messages of the batch, each of which it may send
   * @param unroutableIsPermanent whether a returned message fails permanently
   */
  ConfirmTracker(List<OutboxMessage> batch, boolean unroutableIsPermanent) {
    this.unroutableIsPermanent = unroutableIsPermanent;
    this.batch = batch;
    int capacity = batch.size();
    this.batchIndex = new int[capacity];
    this.outcome = new PublishResult[capacity];
    this.returnedReason = new String[capacity];
  }

  /**
   * Registers the message at {@code index} of the batch, about to be sent with delivery tag {@code
   * tag}. Tags of one channel are consecutive, and one batch owns its channel.
   *
   * @throws IllegalStateException if {@code tag} does not follow the previous one
   */
  synchronized void beforePublish(int index, long tag, String messageId) {
    if (sent == 0) {
      firstTag = tag;
    } else if (tag != firstTag + sent) {
      throw new IllegalStateException("delivery tag " + tag + " does not follow " + (tag - 1));
    }
    int position = sent++;
    batchIndex[position] = index;
    positionsByMessageId.computeIfAbsent(messageId, id -> new ArrayList<>(1)).add(position);
    if (closedOutcome != null) {
      settle(position, closedOutcome);
    }
  }

  /** The last registered message could not be sent. */
  synchronized void publishFailed(Exception cause) {
    if (sent > 0) {
      settle(sent - 1, RabbitFailureClassifier.sendFailed(cause));
    }
  }

  /** The broker returned a message as unroutable; its confirm follows. */
  synchronized void returned(String messageId, int replyCode, String replyText, String route) {
    List<Integer> positions = positionsByMessageId.get(messageId);
    if (positions == null) {
      return;
    }
    brokerAnswered = true;
    String reason = "unroutable: " + replyCode + " " + replyText + " (" + route + ")";
    for (int position : positions) {
      returnedReason[position] = reason;
      runOrder.failed(messageAt(position), unroutable(reason));
    }
  }

  /**
   * The broker acked ({@code ack}) or nacked {@code tag}, or every tag up to it ({@code multiple}).
   */
  synchronized void confirmed(long tag, boolean multiple, boolean ack) {
    long last = tag - firstTag;
    if (firstTag < 0 || last < 0 || last >= sent) {
      return; // not this batch's tag
    }
    brokerAnswered = true;
    int from = multiple ? lowestUnsettled : (int) last;
    for (int position = from; position <= last; position++) {
      if (outcome[position] != null) {
        continue;
      }
      if (returnedReason[position] != null) {
        settle(position, unroutable(returnedReason[position]));
      } else if (ack) {
        settle(position, PublishResult.published());
      } else {
        PublishResult nacked =
            PublishResult.retryable("nacked by RabbitMQ (the broker could not take it)");
        runOrder.failed(messageAt(position), nacked);
        settle(position, nacked);
      }
    }
  }

  /**
   * The outcome of {@code message} if it must not be sent because an earlier message of its
   * aggregate failed on its own: the broker returned or nacked it, or it was {@linkplain
   * #failedBeforeSending refused before sending}; {@code null} if it may be sent. A channel's
   * closing does not count: it fails every later send of the batch anyway.
   */
  synchronized PublishResult heldBack(OutboxMessage message) {
    return runOrder.heldBack(message);
  }

  /**
   * Records that {@code message} was not sent because it failed with {@code result} (it cannot be
   * converted, its exchange is missing), so that the later messages of its aggregate are held back.
   */
  synchronized void failedBeforeSending(OutboxMessage message, PublishResult result) {
    runOrder.failed(message, result);
  }

  /** The channel closed: nothing unconfirmed will be confirmed any more. */
  synchronized void channelClosed(ShutdownSignalException cause) {
    closedOutcome = RabbitFailureClassifier.channelClosed(cause);
    expire(closedOutcome);
  }

  /**
   * Waits until every sent message is settled or {@code deadlineNanos} (of {@link
   * System#nanoTime()}) passes.
   *
   * @return whether the broker settled every message, so no confirm is still outstanding
   * @throws InterruptedException if interrupted while waiting
   */
  synchronized boolean await(long deadlineNanos) throws InterruptedException {
    while (settled < sent) {
      long remaining = deadlineNanos - System.nanoTime();
      if (remaining <= 0) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, remaining);
    }
    return true;
  }

  /** Whether the broker confirmed or returned any message of this batch so far. */
  synchronized boolean brokerAnswered() {
    return brokerAnswered;
  }

  /**
   * Gives every sent message still unsettled {@code result}: the deadline passed, or the channel
   * closed.
   */
  synchronized void expire(PublishResult result) {
    for (int position = lowestUnsettled; position < sent; position++) {
      if (outcome[position] == null) {
        settle(position, result);
      }
    }
  }

  /** Copies every sent message's outcome to its place in {@code results}. */
  synchronized void copyTo(PublishResult[] results) {
    for (int position = 0; position < sent; position++) {
      results[batchIndex[position]] = outcome[position];
    }
  }

  /** An unroutable message's outcome, as configured. */
  PublishResult unroutable(String reason) {
    return unroutableIsPermanent
        ? PublishResult.permanent(reason)
        : PublishResult.retryable(reason);
  }

  private OutboxMessage messageAt(int position) {
    return batch.get(batchIndex[position]);
  }

  private void settle(int position, PublishResult result) {
    if (outcome[position] != null) {
      return;
    }
    outcome[position] = result;
    settled++;
    while (lowestUnsettled < sent && outcome[lowestUnsettled] != null) {
      lowestUnsettled++;
    }
    if (settled == sent) {
      notifyAll();
    }
  }
}
