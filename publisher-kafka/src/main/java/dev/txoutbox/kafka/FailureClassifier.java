package dev.txoutbox.kafka;

import dev.txoutbox.spi.PublishResult;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Turns a Kafka send failure into a {@link PublishResult}, and says whether the producer that
 * failed can still be used.
 *
 * <ul>
 *   <li><b>Permanent</b> (the event becomes a dead letter): the record is too large, the topic name
 *       is invalid, the client is not authorized, the record cannot be serialized or the broker
 *       rejects it as invalid. Sending it again cannot help.
 *   <li><b>Retryable</b>: everything else, including all of Kafka's retriable errors (broker not
 *       available, not enough replicas, timeouts, a lost connection). An error we do not know is
 *       retried too: at worst it is retried until the relay's {@code maxAttempts}, never lost.
 *   <li><b>Producer broken</b>: fenced, authentication failed, unsupported broker version, sequence
 *       or producer-id errors, or the producer was closed under us. Such a producer is replaced
 *       before the next batch; the message itself is retryable (or permanent, for authorization).
 * </ul>
 */
final class FailureClassifier {

  /** A classified failure: the message's outcome, and whether its producer must be replaced. */
  record Failure(PublishResult result, boolean producerBroken) {}

  private static final List<Class<? extends Throwable>> PERMANENT =
      List.of(
          RecordTooLargeException.class,
          RecordBatchTooLargeException.class,
          InvalidTopicException.class,
          AuthorizationException.class,
          SerializationException.class,
          InvalidRecordException.class);

  private static final List<Class<? extends Throwable>> PRODUCER_BREAKING =
      List.of(
          ProducerFencedException.class,
          InvalidProducerEpochException.class,
          OutOfOrderSequenceException.class,
          UnknownProducerIdException.class,
          InvalidPidMappingException.class,
          FencedInstanceIdException.class,
          TransactionalIdAuthorizationException.class,
          ClusterAuthorizationException.class,
          AuthenticationException.class,
          UnsupportedVersionException.class,
          IllegalStateException.class);

  private static final int MAX_CAUSE_DEPTH = 10;

  private FailureClassifier() {}

  /**
   * Classifies the failure of a send. Wrappers ({@link ExecutionException}, {@link
   * CompletionException}) are unwrapped; a known type anywhere in the cause chain decides.
   */
  static Failure classify(Throwable failure) {
    Throwable error = unwrap(failure);
    boolean broken = findInChain(error, PRODUCER_BREAKING) != null;
    Throwable permanent = findInChain(error, PERMANENT);
    PublishResult result =
        permanent != null
            ? PublishResult.permanent(describe(permanent), error)
            : PublishResult.retryable(describe(error), error);
    return new Failure(result, broken);
  }

  /** {@code SimpleName: message}, the reason operators see in {@code last_error}. */
  static String describe(Throwable error) {
    String message = error.getMessage();
    String type = error.getClass().getSimpleName();
    return message == null || message.isBlank() ? type : type + ": " + message;
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable error = failure;
    while ((error instanceof ExecutionException || error instanceof CompletionException)
        && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }

  private static Throwable findInChain(Throwable error, List<Class<? extends Throwable>> types) {
    Throwable current = error;
    for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH; depth++) {
      for (Class<? extends Throwable> type : types) {
        if (type.isInstance(current)) {
          return current;
        }
      }
      current = current.getCause();
    }
    return null;
  }
}
