package dev.txoutbox.bench;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import java.util.Map;

/** A real KRaft broker in a child JVM, one topic of 3 partitions. */
final class KafkaTarget implements Target {

  private static final String TOPIC = "bench-orders";

  private final EmbeddedKafka kafka;

  KafkaTarget() {
    kafka = EmbeddedKafka.startDefault();
    kafka.createTopic(TOPIC, 3, Map.of());
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public Publisher publisher() {
    return Publishers.create(
        "kafka", Map.of("bootstrap-servers", kafka.bootstrapServers(), "topic.order", TOPIC));
  }

  @Override
  public void close() {
    kafka.close();
  }
}
