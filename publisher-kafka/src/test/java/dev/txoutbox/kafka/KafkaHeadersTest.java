package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.TestMessages;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.testing.kafka.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class KafkaHeadersTest {

  private final EmbeddedKafka kafka = SharedKafka.broker();

  @Test
  void readsBackExactlyTheHeadersThePublisherWroteOnARealBroker() throws Exception {
    Map<String, String> stored = new LinkedHashMap<>();
    stored.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    stored.put("tracestate", "congo=t61rcWkgMzE");
    stored.put("tenant", "ÄÖÜ – ünïcødé ✓");
    stored.put(OutboxHeaders.EVENT_ID, "a stored header cannot shadow the identity");
    OutboxMessage message =
        TestMessages.message()
            .aggregateType("parcel")
            .aggregateId("p-1")
            .eventType("parcel.sent")
            .headers(stored)
            .createdAt(Instant.parse("2026-11-30T06:50:38.123456Z"))
            .build();
    kafka.createTopic("inbox.parcel", 1, Map.of());

    try (KafkaPublisher publisher =
        KafkaPublisher.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .topicPrefix("inbox.")
            .build()) {
      assertThat(publisher.publish(List.of(message))).allMatch(PublishResult::isPublished);
    }
    List<ConsumerRecord<String, byte[]>> records =
        kafka.read("inbox.parcel", 1, Duration.ofSeconds(30));

    assertThat(records).hasSize(1);
    assertThat(KafkaHeaders.read(records.get(0)))
        .containsExactlyEntriesOf(OutboxHeaders.of(message));
    assertThat(KafkaHeaders.read(records.get(0)).get(OutboxHeaders.EVENT_ID))
        .isEqualTo(message.id().toString());
  }

  @Test
  void theLastOfARepeatedHeaderCountsAndNullValuesAreLeftOut() {
    RecordHeaders headers = new RecordHeaders();
    headers.add("a", "1".getBytes(StandardCharsets.UTF_8));
    headers.add("b", null);
    headers.add("a", "2".getBytes(StandardCharsets.UTF_8));

    assertThat(KafkaHeaders.read(headers)).containsExactlyEntriesOf(Map.of("a", "2"));
  }
}
