package dev.txoutbox.kafka;

import static dev.txoutbox.kafka.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.RunOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The publisher's batching, outcomes and producer lifecycle, against Kafka's MockProducer. */
class KafkaPublisherTest {

  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final List<MockProducer<String, byte[]>> producers = new ArrayList<>();

  @AfterEach
  void stopExecutor() {
    executor.shutdownNow();
  }

  private static MockProducer<String, byte[]> mock(boolean autoComplete) {
    return new MockProducer<>(
        autoComplete, null, new StringSerializer(), new ByteArraySerializer());
  }

  private static final MetricName METADATA_AGE =
      new MetricName("metadata-age", "producer-metrics", "", Map.of());

  /** The producer's metadata-age metric, fixed at {@code seconds}. */
  private static Metric metadataAge(double seconds) {
    return new Metric() {
      @Override
      public MetricName metricName() {
        return METADATA_AGE;
      }

      @Override
      public Object metricValue() {
        return seconds;
      }
    };
  }

  /**
   * A producer that, like KafkaProducer, returns a failed future after {@code max.block.ms} for a
   * topic whose metadata never arrives, and reports its metadata as {@code ageSeconds} old.
   */
  private static final class MetadataTimeouts extends MockProducer<String, byte[]> {
    final AtomicInteger blockedSends = new AtomicInteger();
    private final Set<String> unknownTopics;

    MetadataTimeouts(Set<String> unknownTopics, double ageSeconds) {
      super(true, null, new StringSerializer(), new ByteArraySerializer());
      this.unknownTopics = unknownTopics;
      setMockMetrics(METADATA_AGE, metadataAge(ageSeconds));
    }

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<String, byte[]> record, Callback callback) {
      if (unknownTopics.contains(record.topic())) {
        blockedSends.incrementAndGet();
        return CompletableFuture.failedFuture(
            new TimeoutException(
                "Topic " + record.topic() + " not present in metadata after 60000 ms."));
      }
      return super.send(record, callback);
    }
  }

  private KafkaPublisher publisher(MockProducer<String, byte[]> producer) {
    producers.add(producer);
    return KafkaPublisher.builder()
        .bootstrapServers("unused:9092")
        .producerFactory(config -> producer)
        .build();
  }

  private static List<OutboxMessage> orders(String... aggregateIds) {
    List<OutboxMessage> batch = new ArrayList<>();
    for (String id : aggregateIds) {
      batch.add(message("order", id));
    }
    return batch;
  }

  private KafkaPublisher.Builder publisher(boolean autoComplete) {
    return KafkaPublisher.builder()
        .bootstrapServers("unused:9092")
        .producerFactory(
            config -> {
              MockProducer<String, byte[]> producer = mock(autoComplete);
              producers.add(producer);
              return producer;
            });
  }

  @Test
  void sendsTheWholeBatchBeforeWaitingForAnyAcknowledgement() throws Exception {
    try (KafkaPublisher publisher = publisher(false).build()) {
      MockProducer<String, byte[]> producer = producers.get(0);
      Future<List<PublishResult>> results =
          executor.submit(
              () -> publisher.publish(List.of(message("order", "a"), message("order", "b"))));

      await().until(() -> producer.history().size() == 2);
      assertThat(results).isNotDone();
      producer.completeNext();
      producer.completeNext();

      assertThat(results.get(10, TimeUnit.SECONDS)).allMatch(PublishResult::isPublished);
    }
  }

  @Test
  void eachMessageGetsItsOwnOutcome() throws Exception {
    try (KafkaPublisher publisher = publisher(false).build()) {
      MockProducer<String, byte[]> producer = producers.get(0);
      Future<List<PublishResult>> results =
          executor.submit(() -> publisher.publish(orders("a", "b", "c", "d", "e")));

      await().until(() -> producer.history().size() == 5);
      producer.completeNext();
      producer.errorNext(new RecordTooLargeException("too large"));
      producer.errorNext(new TimeoutException("Expiring 1 record(s)"));
      producer.errorNext(new NotLeaderOrFollowerException("no leader for order-2"));
      producer.errorNext(new UnknownServerException("an error the publisher does not know"));

      assertThat(results.get(10, TimeUnit.SECONDS))
          .extracting(PublishResult::status)
          .containsExactly(
              Status.PUBLISHED,
              Status.PERMANENT_FAILURE,
              Status.BROKER_UNAVAILABLE,
              Status.BROKER_UNAVAILABLE,
              Status.RETRYABLE_FAILURE);
    }
  }

  @Test
  void waitsForTheProducersOutcomeLongAfterTheSendTimeout() throws Exception {
    try (KafkaPublisher publisher =
        publisher(false)
            .sendTimeout(Duration.ofMillis(100))
            .producerProperty("delivery.timeout.ms", 60_000)
            .build()) {
      MockProducer<String, byte[]> producer = producers.get(0);
      Future<List<PublishResult>> results = executor.submit(() -> publisher.publish(orders("a")));
      await().until(() -> producer.history().size() == 1);

      // The producer may still deliver the record: the publisher must not give up on it.
      await()
          .during(Duration.ofMillis(600))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !results.isDone());
      producer.completeNext();

      assertThat(results.get(10, TimeUnit.SECONDS))
          .extracting(PublishResult::status)
          .containsExactly(Status.PUBLISHED);
    }
  }

  @Test
  void aRecordTheProducerNeverReportsIsRetryableAndTheStuckProducerIsReplaced() throws Exception {
    try (KafkaPublisher publisher = publisher(false).sendTimeout(Duration.ofMillis(200)).build()) {
      List<PublishResult> results = publisher.publish(orders("a"));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.RETRYABLE_FAILURE);
      assertThat(results.get(0).reason()).contains("no outcome within delivery.timeout.ms");
      assertThat(producers.get(0).closed()).isTrue();
    }
  }

  @Test
  void aMessageWithoutARouteIsAPermanentFailureAndIsNotSent() throws Exception {
    try (KafkaPublisher publisher = publisher(true).topics(Map.of("order", "orders")).build()) {
      List<PublishResult> results =
          publisher.publish(List.of(message("order", "a"), message("invoice", "i")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.PUBLISHED, Status.PERMANENT_FAILURE);
      assertThat(results.get(1).reason())
          .isEqualTo(
              "the Kafka topic router has no route for aggregate type 'invoice' (event type"
                  + " 'invoice.happened')");
      assertThat(producers.get(0).history())
          .extracting(ProducerRecord::topic)
          .containsExactly("orders");
    }
  }

  @Test
  void aRouterThatThrowsFailsOnlyItsOwnMessage() throws Exception {
    KafkaRouter router =
        message -> {
          if (message.aggregateId().equals("bad")) {
            throw new IllegalArgumentException("no such tenant");
          }
          return Optional.of("orders");
        };
    try (KafkaPublisher publisher = publisher(true).router(router).build()) {
      List<PublishResult> results =
          publisher.publish(List.of(message("order", "bad"), message("order", "good")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE, Status.PUBLISHED);
      assertThat(results.get(0).reason())
          .isEqualTo(
              "the Kafka topic router failed: java.lang.IllegalArgumentException: no such tenant");
    }
  }

  @Test
  void aRouterThatReturnsNullOrABlankTopicFailsOnlyItsOwnMessage() throws Exception {
    KafkaRouter router =
        message ->
            switch (message.aggregateId()) {
              case "null" -> null;
              case "blank" -> Optional.of(" ");
              default -> Optional.of("orders");
            };
    try (KafkaPublisher publisher = publisher(true).router(router).build()) {
      List<PublishResult> results =
          publisher.publish(
              List.of(message("order", "null"), message("order", "blank"), message("order", "a")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE, Status.PERMANENT_FAILURE, Status.PUBLISHED);
      assertThat(results.get(0).reason())
          .isEqualTo("the Kafka topic router returned null instead of a route");
      assertThat(results.get(1).reason()).startsWith("the Kafka topic router has no route");
      assertThat(producers.get(0).history()).extracting(ProducerRecord::key).containsExactly("a");
    }
  }

  @Test
  void anAggregateTypeThatIsNoLegalTopicNameIsAPermanentFailure() throws Exception {
    try (KafkaPublisher publisher = publisher(true).build()) {
      List<PublishResult> results =
          publisher.publish(List.of(message("order lines", "a"), message("order", "b")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE, Status.PUBLISHED);
      assertThat(results.get(0).reason()).contains("order lines");
    }
  }

  @Test
  void aSendRefusedAtOnceIsClassified() throws Exception {
    try (KafkaPublisher publisher = publisher(true).build()) {
      producers.get(0).sendException = new RecordTooLargeException("larger than max.request.size");

      assertThat(publisher.publish(List.of(message("order", "a"))))
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE);
    }
  }

  /**
   * A producer that, like KafkaProducer, fails a record over {@code max.request.size} at once with
   * a failed future, and throws for a record it cannot serialize.
   */
  private static final class RefusingAtOnce extends MockProducer<String, byte[]> {
    static final String TOO_LARGE = "{\"too\":\"large\"}";
    static final String UNSERIALIZABLE = "{\"not\":\"serializable\"}";

    RefusingAtOnce() {
      super(true, null, new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public synchronized Future<RecordMetadata> send(
        ProducerRecord<String, byte[]> record, Callback callback) {
      String value = new String(record.value(), StandardCharsets.UTF_8);
      if (value.equals(TOO_LARGE)) {
        return CompletableFuture.failedFuture(
            new RecordTooLargeException("larger than max.request.size"));
      }
      if (value.equals(UNSERIALIZABLE)) {
        throw new SerializationException("cannot serialize");
      }
      return super.send(record, callback);
    }
  }

  @Test
  void aFailureAtHandOverStopsTheLaterEventsOfItsAggregateOnly() throws Exception {
    RefusingAtOnce producer = new RefusingAtOnce();
    List<OutboxMessage> batch =
        List.of(
            message("order", "a"),
            message("order", "a", RefusingAtOnce.TOO_LARGE),
            message("order", "b", RefusingAtOnce.UNSERIALIZABLE),
            message("order", "a"),
            message("order", "c"),
            message("order", "b"),
            message("order", "a"));
    try (KafkaPublisher publisher = publisher(producer)) {
      List<PublishResult> results = publisher.publish(batch);

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(
              Status.PUBLISHED,
              Status.PERMANENT_FAILURE,
              Status.PERMANENT_FAILURE,
              Status.RETRYABLE_FAILURE,
              Status.PUBLISHED,
              Status.RETRYABLE_FAILURE,
              Status.RETRYABLE_FAILURE);
      assertThat(List.of(results.get(3), results.get(5), results.get(6)))
          .extracting(PublishResult::reason)
          .containsOnly(RunOrder.NOT_SENT);
      assertThat(producer.history())
          .as("the later events of a and b were never handed to the producer")
          .extracting(ProducerRecord::key)
          .containsExactly("a", "c");
    }
  }

  @Test
  void anAggregateWithoutARouteIsNotSentAfterItsFirstEvent() throws Exception {
    KafkaRouter router =
        message -> message.payload().contains("nowhere") ? Optional.empty() : Optional.of("orders");
    try (KafkaPublisher publisher = publisher(true).router(router).build()) {
      List<PublishResult> results =
          publisher.publish(
              List.of(
                  message("order", "a", "{\"to\":\"nowhere\"}"),
                  message("order", "b"),
                  message("order", "a")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.PERMANENT_FAILURE, Status.PUBLISHED, Status.RETRYABLE_FAILURE);
      assertThat(results.get(2).reason()).isEqualTo(RunOrder.NOT_SENT);
      assertThat(producers.get(0).history()).extracting(ProducerRecord::key).containsExactly("b");
    }
  }

  @Test
  void aLaterEventAcknowledgedAfterAnEarlierOneOfItsAggregateFailedIsNotReportedPublished()
      throws Exception {
    try (KafkaPublisher publisher = publisher(false).build()) {
      MockProducer<String, byte[]> producer = producers.get(0);
      Future<List<PublishResult>> results =
          executor.submit(() -> publisher.publish(orders("a", "a", "b", "a", "b")));

      await().until(() -> producer.history().size() == 5);
      producer.completeNext();
      producer.errorNext(new RecordTooLargeException("the topic's max.message.bytes"));
      producer.completeNext();
      producer.completeNext();
      producer.completeNext();

      List<PublishResult> outcome = results.get(10, TimeUnit.SECONDS);
      assertThat(outcome)
          .extracting(PublishResult::status)
          .containsExactly(
              Status.PUBLISHED,
              Status.PERMANENT_FAILURE,
              Status.PUBLISHED,
              Status.RETRYABLE_FAILURE,
              Status.PUBLISHED);
      assertThat(outcome.get(3).reason()).isEqualTo(RunOrder.SENT_AFTER_FAILURE);
    }
  }

  @Test
  void aMetadataTimeoutWithoutAnswerFromTheClusterStopsTheBatchAsBrokerUnavailable()
      throws Exception {
    MetadataTimeouts producer = new MetadataTimeouts(Set.of("slow"), 3600.0);
    try (KafkaPublisher publisher = publisher(producer)) {
      List<PublishResult> results =
          publisher.publish(
              List.of(
                  message("slow", "a"),
                  message("fast", "b"),
                  message("no topic", "x"),
                  message("fast", "c")));

      // Every message not handed over is unavailable; one without a valid topic stays permanent.
      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(
              Status.BROKER_UNAVAILABLE,
              Status.BROKER_UNAVAILABLE,
              Status.PERMANENT_FAILURE,
              Status.BROKER_UNAVAILABLE);
      assertThat(results.get(0).reason()).contains("not present in metadata");
      assertThat(List.of(results.get(1), results.get(3)))
          .extracting(PublishResult::reason)
          .containsOnly(
              "not sent: the cluster did not answer while an earlier send of this batch waited");
      assertThat(results.get(2).reason()).startsWith("invalid topic");
      assertThat(producer.history()).isEmpty();
      assertThat(producer.blockedSends).hasValue(1);
    }
  }

  @Test
  void aMetadataTimeoutWhileTheClusterAnswersIsAMissingTopicAndTheRestIsSent() throws Exception {
    MetadataTimeouts producer = new MetadataTimeouts(Set.of("missing"), 0.0);
    try (KafkaPublisher publisher = publisher(producer)) {
      List<PublishResult> results =
          publisher.publish(
              List.of(message("missing", "a"), message("missing", "b"), message("order", "c")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(Status.RETRYABLE_FAILURE, Status.RETRYABLE_FAILURE, Status.PUBLISHED);
      assertThat(results.get(0).reason()).contains("topic missing", "does it exist");
      assertThat(producer.blockedSends).hasValue(1);
    }
  }

  @Test
  void aSecondBlockingSendStopsTheBatch() throws Exception {
    MetadataTimeouts producer = new MetadataTimeouts(Set.of("missing1", "missing2"), 0.0);
    try (KafkaPublisher publisher = publisher(producer)) {
      List<PublishResult> results =
          publisher.publish(
              List.of(
                  message("missing1", "a"),
                  message("missing2", "b"),
                  message("missing3", "c"),
                  message("order", "d")));

      assertThat(results)
          .extracting(PublishResult::status)
          .containsExactly(
              Status.RETRYABLE_FAILURE,
              Status.RETRYABLE_FAILURE,
              Status.BROKER_UNAVAILABLE,
              Status.BROKER_UNAVAILABLE);
      assertThat(producer.blockedSends).hasValue(2);
    }
  }

  @Test
  void aFullBufferIsBrokerUnavailableEvenWhenTheClusterAnswers() throws Exception {
    MockProducer<String, byte[]> producer = mock(true);
    producer.sendException = new BufferExhaustedException("Failed to allocate memory");
    producer.setMockMetrics(METADATA_AGE, metadataAge(0.0));
    try (KafkaPublisher publisher = publisher(producer)) {
      assertThat(publisher.publish(orders("a", "b")))
          .extracting(PublishResult::status)
          .containsOnly(Status.BROKER_UNAVAILABLE);
    }
  }

  @Test
  void aFatallyFailedProducerIsReplacedBeforeTheNextBatch() throws Exception {
    try (KafkaPublisher publisher = publisher(true).build()) {
      MockProducer<String, byte[]> first = producers.get(0);
      first.sendException = new ProducerFencedException("fenced by a newer instance");

      assertThat(publisher.publish(List.of(message("order", "a"))))
          .extracting(PublishResult::status)
          .containsExactly(Status.RETRYABLE_FAILURE);
      assertThat(first.closed()).isTrue();

      assertThat(publisher.publish(List.of(message("order", "a"))))
          .extracting(PublishResult::status)
          .containsExactly(Status.PUBLISHED);
      assertThat(producers).hasSize(2);
      assertThat(producers.get(1).history()).hasSize(1);
    }
  }

  @Test
  void anInterruptWhileWaitingIsRaisedAsInterruptedException() throws Exception {
    try (KafkaPublisher publisher = publisher(false).build()) {
      CompletableFuture<Throwable> failure = new CompletableFuture<>();
      Thread relayWorker =
          new Thread(
              () -> {
                try {
                  publisher.publish(List.of(message("order", "a")));
                  failure.complete(null);
                } catch (Throwable e) {
                  failure.complete(e);
                }
              });
      relayWorker.start();
      await().until(() -> producers.get(0).history().size() == 1);

      relayWorker.interrupt();

      assertThat(failure.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
    }
  }

  @Test
  void batchesFromManyThreadsAtOnceAllGetTheirResults() throws Exception {
    try (KafkaPublisher publisher = publisher(true).build()) {
      List<Future<List<PublishResult>>> batches = new ArrayList<>();
      for (int worker = 0; worker < 8; worker++) {
        List<OutboxMessage> batch = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          batch.add(message("order", "w" + worker + "-" + i));
        }
        batches.add(executor.submit(() -> publisher.publish(batch)));
      }

      for (Future<List<PublishResult>> batch : batches) {
        assertThat(batch.get(10, TimeUnit.SECONDS))
            .hasSize(50)
            .allMatch(PublishResult::isPublished);
      }
      assertThat(producers.get(0).history()).hasSize(400);
    }
  }

  @Test
  void closeIsIdempotentClosesTheProducerAndRefusesLaterBatches() {
    KafkaPublisher publisher = publisher(true).build();

    publisher.close();
    publisher.close();

    assertThat(producers.get(0).closed()).isTrue();
    assertThatThrownBy(() -> publisher.publish(List.of(message("order", "a"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
