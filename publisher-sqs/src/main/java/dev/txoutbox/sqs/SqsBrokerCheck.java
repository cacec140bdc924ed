package dev.txoutbox.sqs;

import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.SecretMasking;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * {@link SqsPublisher#checkBroker}: asks SQS about every queue the routes name (its URL, then its
 * {@code MaximumMessageSize}), or, under a custom router, lists one queue; every request bounded by
 * what is left of the check's timeout. Sends nothing. Thread-safe (stateless).
 */
final class SqsBrokerCheck {

  /** Error codes of a request whose credentials SQS did not accept. */
  private static final Set<String> CREDENTIAL_CODES =
      Set.of(
          "InvalidClientTokenId",
          "SignatureDoesNotMatch",
          "UnrecognizedClientException",
          "MissingAuthenticationToken",
          "IncompleteSignature",
          "ExpiredToken",
          "InvalidAccessKeyId");

  private static final int FORBIDDEN = 403;

  private SqsBrokerCheck() {}

  /**
   * @param queues the queues of the routes, names or URLs; empty under a custom router
   */
  static BrokerCheck run(
      SqsAsyncClient client, QueueResolver resolver, Collection<String> queues, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String asking = "SQS";
    try {
      if (queues.isEmpty()) {
        await(
            client.listQueues(
                r -> r.maxResults(1).overrideConfiguration(o -> o.apiCallTimeout(timeout))),
            deadline);
        return BrokerCheck.reachable(
            "SQS answered ListQueues (a custom router names no queue to check)");
      }
      StringJoiner found = new StringJoiner(", ", "SQS answered for ", "");
      for (String queue : queues) {
        asking = "SQS queue " + SecretMasking.maskUri(queue);
        if (QueueResolver.isUrl(queue)) {
          Duration left = left(deadline);
          await(
              client.getQueueAttributes(
                  r ->
                      r.queueUrl(queue)
                          .attributeNames(QueueAttributeName.QUEUE_ARN)
                          .overrideConfiguration(o -> o.apiCallTimeout(left))),
              deadline);
        } else {
          await(resolver.resolve(queue, left(deadline)), deadline);
        }
        found.add(SecretMasking.maskUri(queue));
      }
      return BrokerCheck.reachable(found.toString());
    } catch (ExecutionException e) {
      Throwable cause = SqsFailureClassifier.unwrap(e);
      return BrokerCheck.unreachable(
          asking
              + (refusedCredentials(cause)
                  ? " refused the credentials (authentication or authorization failed): "
                  : " failed: ")
              + SqsFailureClassifier.describe(cause),
          cause);
    } catch (TimeoutException e) {
      return BrokerCheck.unreachable(
          asking + " did not answer within " + DurationText.of(timeout), e);
    }
  }

  private static boolean refusedCredentials(Throwable error) {
    return error instanceof AwsServiceException service
        && (service.statusCode() == FORBIDDEN
            || (service.awsErrorDetails() != null
                && CREDENTIAL_CODES.contains(service.awsErrorDetails().errorCode())));
  }

  private static <T> T await(CompletableFuture<T> future, long deadline)
      throws ExecutionException, TimeoutException, InterruptedException {
    return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }
}
