package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Maps an outbox message to a Kafka record: key = aggregate id, value = payload bytes, headers =
 * {@link OutboxHeaders#of(OutboxMessage)} as UTF-8 bytes, in its order. No partition and no
 * timestamp are set: the default partitioner keeps one key in one partition, and the record's
 * timestamp is the send time (the event's creation time travels in a header, so a re-driven old
 * event is not deleted at once by the topic's retention).
 */
final class KafkaMessageMapper {

  private KafkaMessageMapper() {}

  static ProducerRecord<String, byte[]> toRecord(String topic, OutboxMessage message) {
    RecordHeaders headers = new RecordHeaders();
    for (Map.Entry<String, String> header : OutboxHeaders.of(message).entrySet()) {
      add(headers, header.getKey(), header.getValue());
    }
    return new ProducerRecord<>(
        topic, null, null, message.aggregateId(), message.payloadBytes(), headers);
  }

  private static void add(RecordHeaders headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
