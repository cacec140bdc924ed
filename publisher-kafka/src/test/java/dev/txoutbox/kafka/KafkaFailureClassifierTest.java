package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.PublishResult.Status;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.LeaderNotAvailableException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KafkaFailureClassifierTest {

  static Stream<Exception> permanent() {
    return Stream.of(
        new RecordTooLargeException("The message is 2000000 bytes"),
        new RecordBatchTooLargeException("batch too large"),
        new InvalidTopicException("bad topic"),
        new TopicAuthorizationException("not authorized to access topics: [orders]"),
        new SerializationException("cannot serialize"),
        new InvalidRecordException("compacted topic needs a key"),
        new InvalidTimestampException("timestamp out of range"));
  }

  static Stream<Exception> brokerUnavailable() {
    return Stream.of(
        new TimeoutException("Expiring 3 record(s): 30001 ms has passed since batch creation"),
        new TimeoutException("Topic orders not present in metadata after 30000 ms."),
        new BufferExhaustedException("Failed to allocate memory within the configured max time"),
        new NetworkException("connection lost"),
        new DisconnectException("Disconnected from node 1"),
        new BrokerNotAvailableException("broker down"),
        new NotEnoughReplicasException("not enough replicas"),
        new NotEnoughReplicasAfterAppendException("appended, then replicas went away"),
        new CoordinatorNotAvailableException("no coordinator"),
        new KafkaException("send failed", new TimeoutException("wrapped")),
        new NotLeaderOrFollowerException("leader moved"),
        new LeaderNotAvailableException("election in progress"),
        new KafkaStorageException("log directory failed"));
  }

  static Stream<Exception> retryable() {
    return Stream.of(
        new UnknownTopicOrPartitionException("unknown partition"),
        new CorruptRecordException("CRC mismatch"),
        new UnknownServerException("something odd"),
        new KafkaException("an error we do not know"),
        new RuntimeException("not even a Kafka error"));
  }

  static Stream<Exception> producerBreaking() {
    return Stream.of(
        new ProducerFencedException("fenced"),
        new OutOfOrderSequenceException("sequence gap"),
        new IllegalStateException("Cannot perform operation after producer has been closed"),
        new KafkaException("producer is in an error state", new ProducerFencedException("x")));
  }

  static Stream<Exception> clusterWideAndProducerBreaking() {
    return Stream.of(
        new SaslAuthenticationException("bad credentials"),
        new ClusterAuthorizationException("no IdempotentWrite on the cluster"),
        new UnsupportedVersionException("broker too old"));
  }

  @ParameterizedTest
  @MethodSource("permanent")
  void recordsTheBrokerCanNeverAcceptArePermanent(Exception error) {
    KafkaFailureClassifier.Failure failure = KafkaFailureClassifier.classify(error);

    assertThat(failure.result().status()).isEqualTo(Status.PERMANENT_FAILURE);
    assertThat(failure.producerBroken()).isFalse();
  }

  @ParameterizedTest
  @MethodSource("brokerUnavailable")
  void anUnreachableOrRefusingClusterOrPartitionLeaderIsBrokerUnavailable(Exception error) {
    KafkaFailureClassifier.Failure failure = KafkaFailureClassifier.classify(error);

    assertThat(failure.result().status()).isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(failure.producerBroken()).isFalse();
  }

  @ParameterizedTest
  @MethodSource("retryable")
  void messageSpecificAndUnknownErrorsAreRetryable(Exception error) {
    KafkaFailureClassifier.Failure failure = KafkaFailureClassifier.classify(error);

    assertThat(failure.result().status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(failure.producerBroken()).isFalse();
  }

  @ParameterizedTest
  @MethodSource("producerBreaking")
  void fatalProducerErrorsAreRetryableAndReplaceTheProducer(Exception error) {
    KafkaFailureClassifier.Failure failure = KafkaFailureClassifier.classify(error);

    assertThat(failure.result().status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(failure.producerBroken()).isTrue();
  }

  @ParameterizedTest
  @MethodSource("clusterWideAndProducerBreaking")
  void errorsThatFailEveryMessageAlikeAreBrokerUnavailableAndReplaceTheProducer(Exception error) {
    KafkaFailureClassifier.Failure failure = KafkaFailureClassifier.classify(error);

    assertThat(failure.result().status()).isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(failure.producerBroken()).isTrue();
  }

  @Test
  void unwrapsTheFutureExceptionAndKeepsTheCause() {
    RecordTooLargeException cause = new RecordTooLargeException("The message is 2000000 bytes");

    KafkaFailureClassifier.Failure failure =
        KafkaFailureClassifier.classify(new ExecutionException(cause));

    assertThat(failure.result().isPermanent()).isTrue();
    assertThat(failure.result().cause()).isSameAs(cause);
    assertThat(failure.result().reason())
        .isEqualTo("RecordTooLargeException: The message is 2000000 bytes");
  }

  @Test
  void findsAPermanentCauseInsideAWrapper() {
    KafkaFailureClassifier.Failure failure =
        KafkaFailureClassifier.classify(
            new KafkaException("send failed", new SerializationException("bad bytes")));

    assertThat(failure.result().isPermanent()).isTrue();
    assertThat(failure.result().reason()).startsWith("SerializationException");
  }

  @Test
  void theOutermostKnownErrorDecides() {
    KafkaFailureClassifier.Failure failure =
        KafkaFailureClassifier.classify(
            new RecordTooLargeException("too large", new NetworkException("and the link broke")));

    assertThat(failure.result().isPermanent()).isTrue();
  }
}
