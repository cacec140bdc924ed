package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Maps an outbox message to a Kafka record: key = aggregate id, value = payload bytes, headers =
 * the {@link OutboxHeaders} identity headers followed by the stored headers. No partition and no
 * timestamp are set: the default partitioner keeps one key in one partition, and the record's
 * timestamp is the send time (the event's creation time travels in a header, so a re-driven old
 * event is not deleted at once by the topic's retention).
 */
final class RecordMapper {

  private static final Set<String> RESERVED =
      Set.of(
          OutboxHeaders.EVENT_ID,
          OutboxHeaders.EVENT_TYPE,
          OutboxHeaders.AGGREGATE_TYPE,
          OutboxHeaders.AGGREGATE_ID,
          OutboxHeaders.CREATED_AT);

  private RecordMapper() {}

  static ProducerRecord<String, byte[]> toRecord(String topic, OutboxMessage message) {
    RecordHeaders headers = new RecordHeaders();
    add(headers, OutboxHeaders.EVENT_ID, message.id().toString());
    add(headers, OutboxHeaders.EVENT_TYPE, message.eventType());
    add(headers, OutboxHeaders.AGGREGATE_TYPE, message.aggregateType());
    add(headers, OutboxHeaders.AGGREGATE_ID, message.aggregateId());
    add(headers, OutboxHeaders.CREATED_AT, message.createdAt().toString());
    for (Map.Entry<String, String> stored : message.headers().entrySet()) {
      // A stored header never shadows the identity headers consumers deduplicate on.
      if (!RESERVED.contains(stored.getKey())) {
        add(headers, stored.getKey(), stored.getValue());
      }
    }
    return new ProducerRecord<>(
        topic, null, null, message.aggregateId(), message.payloadBytes(), headers);
  }

  private static void add(RecordHeaders headers, String name, String value) {
    headers.add(name, value == null ? null : value.getBytes(StandardCharsets.UTF_8));
  }
}
