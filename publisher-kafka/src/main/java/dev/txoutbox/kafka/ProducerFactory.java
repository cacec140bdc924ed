package dev.txoutbox.kafka;

import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Creates the Kafka producer a {@link KafkaPublisher} sends with: the record key is the aggregate
 * id as a string, the value the payload bytes. The publisher calls it once when it is built and
 * again whenever a producer has failed fatally and must be replaced. Replace the default to wrap
 * the producer, for example with tracing instrumentation.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ProducerFactory {

  /**
   * Creates a producer from the effective producer configuration.
   *
   * @param config the effective configuration, including the publisher's defaults; unmodifiable
   */
  Producer<String, byte[]> create(Map<String, Object> config);

  /** A plain {@link KafkaProducer} with a UTF-8 string key and a byte-array value. */
  static ProducerFactory kafkaProducer() {
    return config -> new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
  }
}
