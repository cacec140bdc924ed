package dev.txoutbox.sqs;

import dev.txoutbox.spi.PublishResult;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Classifies SQS failures as retryable or permanent. Stateless and thread-safe.
 *
 * <p>A failed batch entry is permanent when SQS says it is the sender's fault ({@code
 * SenderFault}), retryable otherwise. A failed request (or queue lookup) is retryable for all its
 * messages — network errors, timeouts, throttling, 5xx — unless SQS answered with an error that a
 * retry cannot fix: the queue does not exist, access is denied, the request is unsupported, or the
 * queue's KMS key is unusable.
 */
final class Failures {

  private static final Set<String> PERMANENT_CODES =
      Set.of(
          "AWS.SimpleQueueService.NonExistentQueue",
          "QueueDoesNotExist",
          "AccessDenied",
          "AccessDeniedException",
          "InvalidAddress",
          "InvalidSecurity",
          "UnsupportedOperation",
          "AWS.SimpleQueueService.UnsupportedOperation",
          "KmsAccessDenied",
          "KmsDisabled",
          "KmsNotFound",
          "KmsInvalidKeyUsage");

  private Failures() {}

  /**
   * The outcome for every message of a request (or queue lookup) that failed with {@code error}.
   */
  static PublishResult ofRequest(String queue, Throwable error) {
    Throwable cause = unwrap(error);
    String reason = "SQS request to " + queue + " failed: " + describe(cause);
    return isPermanent(cause)
        ? PublishResult.permanent(reason, cause)
        : PublishResult.retryable(reason, cause);
  }

  /** The outcome of a batch entry that SQS reported as failed. */
  static PublishResult ofEntry(String queue, BatchResultErrorEntry entry) {
    String reason =
        "SQS refused the message on "
            + queue
            + ": "
            + entry.code()
            + (entry.message() == null ? "" : ": " + entry.message());
    return Boolean.TRUE.equals(entry.senderFault())
        ? PublishResult.permanent(reason)
        : PublishResult.retryable(reason);
  }

  static boolean isPermanent(Throwable error) {
    if (error instanceof QueueDoesNotExistException) {
      return true;
    }
    if (error instanceof AwsServiceException service && !service.isThrottlingException()) {
      return service.awsErrorDetails() != null
          && PERMANENT_CODES.contains(service.awsErrorDetails().errorCode());
    }
    return false;
  }

  static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static String describe(Throwable error) {
    if (error instanceof AwsServiceException service && service.awsErrorDetails() != null) {
      return service.awsErrorDetails().errorCode()
          + " (HTTP "
          + service.statusCode()
          + "): "
          + service.awsErrorDetails().errorMessage();
    }
    return error.getClass().getSimpleName() + ": " + error.getMessage();
  }
}
