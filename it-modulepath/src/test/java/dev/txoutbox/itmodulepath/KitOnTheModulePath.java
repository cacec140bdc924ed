package dev.txoutbox.itmodulepath;

import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Run by {@link TestingKitOnTheModulePathTest} in a JVM whose module path holds the testing kit and
 * the Kafka client: prints the modules the fixture and the client were loaded from, then starts the
 * kit's Kafka broker, sends a record and reads it back.
 */
public final class KitOnTheModulePath {

  private KitOnTheModulePath() {}

  /** Prints what it found and did, one line each. */
  public static void main(String[] args) throws Exception {
    System.out.println("kit module: " + EmbeddedKafka.class.getModule().getName());
    System.out.println("client module: " + KafkaProducer.class.getModule().getName());
    try (EmbeddedKafka kafka = EmbeddedKafka.builder().start()) {
      kafka.createTopic("order", 1, Map.of());
      try (KafkaProducer<String, byte[]> producer =
          new KafkaProducer<>(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
              new StringSerializer(),
              new ByteArraySerializer())) {
        producer
            .send(new ProducerRecord<>("order", "o-1", "created".getBytes(StandardCharsets.UTF_8)))
            .get(30, TimeUnit.SECONDS);
      }
      System.out.println("read: " + kafka.readAll("order", Duration.ofSeconds(30)).size());
    }
  }
}
