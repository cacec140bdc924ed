package dev.txoutbox.sqs;

import dev.txoutbox.spi.PublishResult;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.KmsThrottledException;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;

/**
 * Classifies SQS failures into the Publisher SPI's three outcomes. Stateless and thread-safe.
 *
 * <p>A failed batch entry is permanent when SQS says it is the sender's fault ({@code
 * SenderFault}), retryable otherwise: SQS answered the request, so it is available. A failed
 * request (or queue lookup) fails all its messages alike:
 *
 * <ul>
 *   <li>broker unavailable (no attempt counted) when SQS cannot be reached or refuses all work: a
 *       network error (any {@link IOException} in the cause chain, such as a refused or reset
 *       connection, an unknown host, a connect timeout), no answer within the API call timeout
 *       (SQS's latency does not depend on the message, and a network partition looks so),
 *       throttling ({@link AwsServiceException#isThrottlingException()}: {@code RequestThrottled},
 *       {@code ThrottlingException}, {@code SlowDown}, HTTP 429…, and {@code KmsThrottled}), or a
 *       server error (HTTP 5xx);
 *   <li>permanent when SQS answered with an error that a retry cannot fix: the queue does not
 *       exist, access is denied, the request is unsupported, or the queue's KMS key is unusable;
 *   <li>retryable otherwise (another client-side or 4xx error).
 * </ul>
 */
final class SqsFailureClassifier {

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

  private static final Set<String> THROTTLING_CODES = Set.of("KmsThrottled");

  private static final int SERVER_ERROR = 500;

  /** How deep a cause chain is searched for an I/O error. */
  private static final int MAX_CAUSE_DEPTH = 16;

  private SqsFailureClassifier() {}

  /**
   * The outcome for every message of a request (or queue lookup) that failed with {@code error}.
   */
  static PublishResult ofRequest(String queue, Throwable error) {
    Throwable cause = unwrap(error);
    String reason = "SQS request to " + queue + " failed: " + describe(cause);
    if (isPermanent(cause)) {
      return PublishResult.permanent(reason, cause);
    }
    return isUnavailable(cause)
        ? PublishResult.brokerUnavailable(reason, cause)
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

  /**
   * Whether {@code error} (unwrapped) means SQS cannot be reached or refuses all work: throttling,
   * a server error, or a network error.
   */
  static boolean isUnavailable(Throwable error) {
    if (error instanceof SdkServiceException service) {
      return service.isThrottlingException()
          || service.statusCode() >= SERVER_ERROR
          || error instanceof KmsThrottledException
          || (error instanceof AwsServiceException aws
              && aws.awsErrorDetails() != null
              && THROTTLING_CODES.contains(aws.awsErrorDetails().errorCode()));
    }
    if (error instanceof ApiCallTimeoutException
        || error instanceof ApiCallAttemptTimeoutException) {
      return true;
    }
    Throwable t = error;
    for (int depth = 0; t != null && depth < MAX_CAUSE_DEPTH; depth++, t = t.getCause()) {
      if (t instanceof IOException) {
        return true;
      }
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

  /**
   * {@code error} for a reason: the AWS error code, HTTP status and message where SQS sent them.
   */
  static String describe(Throwable error) {
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
