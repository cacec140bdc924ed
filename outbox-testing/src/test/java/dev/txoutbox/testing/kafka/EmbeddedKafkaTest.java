package dev.txoutbox.testing.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The Kafka fixture starts a real broker, keeps its data across a stop and a start, and closes. */
class EmbeddedKafkaTest {

  @Test
  void startsABrokerThatKeepsItsRecordsAcrossAStopAndAStart() throws Exception {
    EmbeddedKafka kafka = EmbeddedKafka.builder().start();
    try {
      assertThat(kafka.isRunning()).isTrue();
      kafka.createTopic("orders", 2, Map.of());
      send(kafka, "orders", "order-1", "created");

      assertThat(kafka.read("orders", 1, Duration.ofSeconds(30)))
          .extracting(ConsumerRecord::key)
          .containsExactly("order-1");

      kafka.stop();
      assertThat(kafka.isRunning()).isFalse();
      kafka.start();

      List<ConsumerRecord<String, byte[]>> again = kafka.readAll("orders", Duration.ofSeconds(30));
      assertThat(again).hasSize(1);
      assertThat(new String(again.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("created");
    } finally {
      kafka.close();
    }
    assertThat(kafka.isRunning()).isFalse();
  }

  @Test
  void theBrokerJvmSeesTheModulePathToo() {
    String before = System.getProperty("jdk.module.path");
    try {
      System.setProperty("jdk.module.path", "/m/a.jar" + File.pathSeparator + "/m/b.jar");
      List<String> entries = List.of(EmbeddedKafka.childClassPath().split(File.pathSeparator));
      assertThat(entries).contains("/m/a.jar", "/m/b.jar");
      assertThat(entries)
          .containsAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
    } finally {
      if (before == null) {
        System.clearProperty("jdk.module.path");
      } else {
        System.setProperty("jdk.module.path", before);
      }
    }
  }

  private static void send(EmbeddedKafka kafka, String topic, String key, String value)
      throws Exception {
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer())) {
      producer
          .send(new ProducerRecord<>(topic, key, value.getBytes(StandardCharsets.UTF_8)))
          .get(30, TimeUnit.SECONDS);
    }
  }
}
