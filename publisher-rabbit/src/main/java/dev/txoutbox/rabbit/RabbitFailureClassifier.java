package dev.txoutbox.rabbit;

import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.PublishResult;
import java.io.IOException;
import java.time.Duration;

/**
 * The plugin's failure classifier: turns RabbitMQ failures into the Publisher SPI's three outcomes.
 * Thread-safe (stateless).
 *
 * <ul>
 *   <li><b>Broker unavailable</b> (no attempt counted): the connection cannot be opened (refused,
 *       timed out, handshake or authentication failed, the exchange declaration refused), a channel
 *       cannot be opened, the connection is lost (a connection-level shutdown, a socket error while
 *       sending), the broker blocks publishing on a resource alarm, or it answered no message of
 *       the batch before the confirm deadline.
 *   <li><b>Retryable</b> (an attempt of this message): a nack, a missing confirm within the
 *       deadline while the broker answered others of the batch, a channel closed by a channel-level
 *       error (an exchange deleted after it was checked, a refused permission), and, unless
 *       configured permanent, an unroutable message.
 *   <li><b>Permanent</b>: what the publisher refuses before sending (see {@link
 *       RabbitMessageMapper}) and, when configured, an unroutable message.
 * </ul>
 */
final class RabbitFailureClassifier {

  private RabbitFailureClassifier() {}

  /** Connecting or opening a channel failed: nothing of the batch was sent. */
  static PublishResult unreachable(String endpoint, Exception cause) {
    return PublishResult.brokerUnavailable(
        "cannot reach RabbitMQ at " + endpoint + ": " + describe(cause), cause);
  }

  /** The broker told the connection it blocks publishers (memory or disk alarm). */
  static PublishResult blocked(String endpoint, String reason) {
    return PublishResult.brokerUnavailable(
        "RabbitMQ at " + endpoint + " blocks publishing (resource alarm): " + reason);
  }

  /**
   * No confirm arrived within {@code timeout}. The broker is unavailable if it blocks publishing
   * ({@code blockedReason} not null) or answered no message of the batch at all ({@code
   * batchAnswered} false: a silent connection, a stalled broker); otherwise the confirm of this
   * message is late, a retryable failure.
   */
  static PublishResult confirmTimedOut(
      Duration timeout, String endpoint, String blockedReason, boolean batchAnswered) {
    if (blockedReason != null) {
      return blocked(endpoint, blockedReason);
    }
    return batchAnswered
        ? PublishResult.retryable(
            "no confirm from RabbitMQ within " + DurationText.of(timeout) + " (outcome unknown)")
        : PublishResult.brokerUnavailable(
            "RabbitMQ at "
                + endpoint
                + " answered no message of the batch within "
                + DurationText.of(timeout)
                + " (outcome unknown)");
  }

  /** The channel of the batch closed before the broker confirmed a message. */
  static PublishResult channelClosed(ShutdownSignalException cause) {
    return cause.isHardError()
        ? PublishResult.brokerUnavailable(
            "RabbitMQ connection lost before the broker confirmed: " + cause.getMessage(), cause)
        : PublishResult.retryable(
            "RabbitMQ channel closed before the broker confirmed: " + cause.getMessage(), cause);
  }

  /**
   * Sending broke off with {@code cause}: the outcome of the message being sent and of those not
   * sent yet.
   */
  static PublishResult sendFailed(Exception cause) {
    return isConnectionLost(cause)
        ? PublishResult.brokerUnavailable(
            "not sent: the RabbitMQ connection failed: " + describe(cause), cause)
        : PublishResult.retryable(
            "not sent: the RabbitMQ channel failed: " + describe(cause), cause);
  }

  /**
   * Whether {@code error} means the connection is gone rather than one channel: a connection-level
   * shutdown, or an I/O error that is not a channel's closing.
   */
  static boolean isConnectionLost(Throwable error) {
    if (error instanceof ShutdownSignalException signal) {
      return signal.isHardError();
    }
    if (error instanceof IOException) {
      return !(error.getCause() instanceof ShutdownSignalException signal) || signal.isHardError();
    }
    return false;
  }

  /**
   * {@code error} for a reason text; an {@link IOException} that only wraps the broker's closing
   * (as a refused declaration does) is described by that closing.
   */
  private static String describe(Exception error) {
    if (error.getMessage() == null && error.getCause() instanceof ShutdownSignalException signal) {
      return error.getClass().getName() + ": " + signal.getMessage();
    }
    return error.toString();
  }
}
