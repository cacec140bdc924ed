package dev.txoutbox.kafka;

import static dev.txoutbox.kafka.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.kafka.testing.EmbeddedKafka;
import dev.txoutbox.kafka.testing.SharedKafka;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** What lands on a real broker: keys, partitions, headers, and refusals. */
class KafkaPublisherOnABrokerTest {

  private final EmbeddedKafka kafka = SharedKafka.broker();

  @Test
  void recordsAreKeyedByAggregateIdSoAnAggregateStaysInOnePartitionInOrder() throws Exception {
    kafka.createTopic("keyed.order", 3, Map.of());
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      batch.add(message("order", "order-" + (i % 6), "{\"n\":" + i + "}"));
    }

    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .topicPrefix("keyed.")
            .build()) {
      assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);
    }

    List<ConsumerRecord<String, byte[]>> records =
        kafka.read("keyed.order", batch.size(), Duration.ofSeconds(30));
    assertThat(records).hasSize(batch.size());
    for (ConsumerRecord<String, byte[]> record : records) {
      assertThat(record.key()).isEqualTo(header(record, OutboxHeaders.AGGREGATE_ID));
      assertThat(header(record, OutboxHeaders.AGGREGATE_TYPE)).isEqualTo("order");
      assertThat(header(record, OutboxHeaders.EVENT_TYPE)).isEqualTo("order.happened");
      assertThat(header(record, OutboxHeaders.CREATED_AT)).isEqualTo("2026-11-30T06:50:38.123Z");
      assertThat(header(record, "traceparent")).startsWith("00-4bf92f35");
    }
    Map<String, List<ConsumerRecord<String, byte[]>>> byAggregate =
        records.stream().collect(Collectors.groupingBy(ConsumerRecord::key));
    assertThat(byAggregate).hasSize(6);
    byAggregate.forEach(
        (aggregate, events) -> {
          assertThat(events)
              .extracting(ConsumerRecord::partition)
              .containsOnly(events.get(0).partition());
          List<String> sentIds =
              batch.stream()
                  .filter(m -> m.aggregateId().equals(aggregate))
                  .map(m -> m.id().toString())
                  .collect(Collectors.toList());
          assertThat(events)
              .extracting(r -> header(r, OutboxHeaders.EVENT_ID))
              .containsExactlyElementsOf(sentIds);
        });
  }

  @Test
  void aRecordOverTheProducersMaxRequestSizeIsPermanentAndItsNeighboursArrive() throws Exception {
    kafka.createTopic("huge.order", 1, Map.of());
    String huge = "{\"blob\":\"" + "y".repeat(1_200_000) + "\"}";
    List<OutboxMessage> batch =
        List.of(message("order", "a"), message("order", "b", huge), message("order", "c"));

    List<PublishResult> results;
    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .topicPrefix("huge.")
            .build()) {
      results = publisher.publish(batch);
    }

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(Status.PUBLISHED, Status.PERMANENT_FAILURE, Status.PUBLISHED);
    assertThat(results.get(1).reason()).startsWith("RecordTooLargeException");
    assertThat(kafka.read("huge.order", 2, Duration.ofSeconds(30))).hasSize(2);
  }

  @Test
  void anUnmappedAggregateTypeIsPermanentWhileMappedOnesArrive() throws Exception {
    kafka.createTopic("mapped-orders", 1, Map.of());
    List<PublishResult> results;
    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .topics(Map.of("order", "mapped-orders"))
            .build()) {
      results =
          publisher.publish(
              List.of(message("order", "a"), message("refund", "r"), message("order", "b")));
    }

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(Status.PUBLISHED, Status.PERMANENT_FAILURE, Status.PUBLISHED);
    assertThat(kafka.read("mapped-orders", 2, Duration.ofSeconds(30)))
        .extracting(ConsumerRecord::key)
        .containsExactly("a", "b");
  }

  @Test
  void anUnreachableBrokerIsBrokerUnavailable() throws Exception {
    String nobodyListens;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      nobodyListens = "127.0.0.1:" + socket.getLocalPort();
    }

    List<PublishResult> results;
    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers(nobodyListens)
            .sendTimeout(Duration.ofSeconds(1))
            .build()) {
      results = publisher.publish(List.of(message("order", "a"), message("order", "b")));
    }

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(Status.BROKER_UNAVAILABLE, Status.BROKER_UNAVAILABLE);
    assertThat(results.get(0).reason()).contains("not present in metadata");
  }

  private static String header(ConsumerRecord<String, byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
