package dev.txoutbox.kafka;

import dev.txoutbox.spi.PublishResult;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Turns a Kafka send failure into one of the {@link dev.txoutbox.spi.Publisher Publisher}'s three
 * outcomes, and says whether the producer that failed can still be used.
 *
 * <ul>
 *   <li><b>Broker unavailable</b> (costs the event no attempt): the cluster, or the leader of the
 *       record's partition, cannot be reached or refuses every write. Timeouts (metadata not
 *       available within {@code max.block.ms}, a full buffer, records expired after {@code
 *       delivery.timeout.ms}), lost connections, broker or coordinator not available, no leader for
 *       the partition (leader not available, not leader, fenced or unknown leader epoch, a failed
 *       log directory), not enough in-sync replicas, failed authentication, missing cluster
 *       authorization, a broker too old for the client. When a whole batch is unavailable the relay
 *       pauses and probes; when the broker took the rest of the batch, the relay puts these events
 *       back a little later, still at no attempt. So a partition without a leader delays its own
 *       events and never dead-letters them.
 *   <li><b>Permanent</b> (the event becomes a dead letter): the record is too large, the topic name
 *       is invalid, the client is not authorized for the topic, the record cannot be serialized, or
 *       the broker rejects it as invalid. Sending it again cannot help.
 *   <li><b>Retryable</b>: everything else, including an unknown topic or partition, a corrupt
 *       record, the producer's own state errors and any error we do not know: at worst it is
 *       retried until the relay's {@code maxAttempts}, never lost.
 * </ul>
 *
 * <p>Producer broken: fenced, authentication failed, unsupported broker version, sequence or
 * producer-id errors, or the producer was closed under us. Such a producer is replaced before the
 * next batch. Thread-safe: stateless.
 */
final class KafkaFailureClassifier {

  /** The kind of a failure. */
  enum Kind {
    PERMANENT,
    RETRYABLE,
    BROKER_UNAVAILABLE
  }

  /**
   * A classified failure: its kind, the exception that decided it (for the reason), the whole error
   * (for the cause), and whether its producer must be replaced.
   */
  record Failure(Kind kind, Throwable decisive, Throwable error, boolean producerBroken) {

    /** The message's outcome. */
    PublishResult result() {
      String reason = describe(decisive);
      return switch (kind) {
        case PERMANENT -> PublishResult.permanent(reason, error);
        case RETRYABLE -> PublishResult.retryable(reason, error);
        case BROKER_UNAVAILABLE -> PublishResult.brokerUnavailable(reason, error);
      };
    }
  }

  /** Checked before {@link #PERMANENT}: ClusterAuthorizationException is an authorization error. */
  private static final List<Class<? extends Throwable>> BROKER_UNAVAILABLE =
      List.of(
          TimeoutException.class,
          NetworkException.class,
          DisconnectException.class,
          BrokerNotAvailableException.class,
          NotEnoughReplicasException.class,
          NotEnoughReplicasAfterAppendException.class,
          CoordinatorNotAvailableException.class,
          CoordinatorLoadInProgressException.class,
          NotCoordinatorException.class,
          AuthenticationException.class,
          ClusterAuthorizationException.class,
          UnsupportedVersionException.class,
          LeaderNotAvailableException.class,
          NotLeaderOrFollowerException.class,
          FencedLeaderEpochException.class,
          UnknownLeaderEpochException.class,
          KafkaStorageException.class);

  private static final List<Class<? extends Throwable>> PERMANENT =
      List.of(
          RecordTooLargeException.class,
          RecordBatchTooLargeException.class,
          InvalidTopicException.class,
          AuthorizationException.class,
          SerializationException.class,
          InvalidRecordException.class,
          InvalidTimestampException.class);

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

  private KafkaFailureClassifier() {}

  /**
   * Classifies the failure of a send. Wrappers ({@link ExecutionException}, {@link
   * CompletionException}) are unwrapped; the outermost exception of a known kind in the cause chain
   * decides, and an unknown one is retryable.
   */
  static Failure classify(Throwable failure) {
    Throwable error = unwrap(failure);
    boolean broken = false;
    Throwable current = error;
    for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH; depth++) {
      broken |= isAny(current, PRODUCER_BREAKING);
      current = current.getCause();
    }
    current = error;
    for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH; depth++) {
      Kind kind = kindOf(current);
      if (kind != null) {
        return new Failure(kind, current, error, broken);
      }
      current = current.getCause();
    }
    return new Failure(Kind.RETRYABLE, error, error, broken);
  }

  /** {@code SimpleName: message}, the reason operators see in {@code last_error}. */
  static String describe(Throwable error) {
    String message = error.getMessage();
    String type = error.getClass().getSimpleName();
    return message == null || message.isBlank() ? type : type + ": " + message;
  }

  private static Kind kindOf(Throwable error) {
    if (isAny(error, BROKER_UNAVAILABLE)) {
      return Kind.BROKER_UNAVAILABLE;
    }
    if (isAny(error, PERMANENT)) {
      return Kind.PERMANENT;
    }
    return null;
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable error = failure;
    while ((error instanceof ExecutionException || error instanceof CompletionException)
        && error.getCause() != null) {
      error = error.getCause();
    }
    return error;
  }

  private static boolean isAny(Throwable error, List<Class<? extends Throwable>> types) {
    for (Class<? extends Throwable> type : types) {
      if (type.isInstance(error)) {
        return true;
      }
    }
    return false;
  }
}
