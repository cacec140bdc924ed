package dev.txoutbox.examples.orders;

import dev.txoutbox.inbox.InboxEvent;
import dev.txoutbox.kafka.KafkaHeaders;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Every record of a topic, read from the start by a consumer of its own: how many there are, and
 * how many distinct events they carry.
 */
record TopicCensus(long records, long distinctEvents) {

  static TopicCensus of(String bootstrapServers, String topic) {
    Map<String, Object> config =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrapServers,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class);
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long records = 0;
      Set<UUID> events = new HashSet<>();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
          records++;
          events.add(InboxEvent.from(KafkaHeaders.read(record)).eventId());
        }
      }
      return new TopicCensus(records, events.size());
    }
  }
}
