package dev.txoutbox.kafka.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

class EmbeddedKafkaTest {

  @Test
  void keepsItsDataAcrossAStopAndAStart() throws Exception {
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
      kafka.createTopic("survivors", 1, Map.of());
      try (KafkaProducer<String, byte[]> producer = producer(kafka)) {
        producer.send(new ProducerRecord<>("survivors", "k", new byte[] {1})).get();
      }

      kafka.stop();
      assertThat(kafka.isRunning()).isFalse();
      kafka.start();

      List<ConsumerRecord<String, byte[]>> records =
          kafka.read("survivors", 1, Duration.ofSeconds(30));
      assertThat(records).extracting(ConsumerRecord::key).containsExactly("k");
    }
  }

  private static KafkaProducer<String, byte[]> producer(EmbeddedKafka kafka) {
    return new KafkaProducer<>(
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
        new StringSerializer(),
        new ByteArraySerializer());
  }
}
