package dev.txoutbox.kafka;

import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.SecretMasking;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Computes the producer configuration a {@link KafkaPublisher} runs with: the user's settings, plus
 * the publisher's defaults for what the user left out, and masks secrets for logging.
 *
 * <p>Defaults: {@code enable.idempotence=true}, {@code acks=all}, {@code
 * max.in.flight.requests.per.connection=1}, {@code reconnect.backoff.max.ms=10000} (see {@link
 * #DEFAULT_RECONNECT_BACKOFF_MAX_MS}), {@code max.block.ms} and {@code delivery.timeout.ms} equal
 * to the send timeout, and {@code request.timeout.ms} small enough to fit in it (at most Kafka's 30
 * s), as Kafka requires.
 *
 * <p>One request in flight per connection keeps each partition's records in order even when one of
 * them fails for good: with more, a record the broker refuses (too large for the topic, invalid)
 * while an earlier batch of its partition is being retried (a leader change) makes the idempotent
 * producer restart the partition's sequence numbers, and the retried batch can land after the later
 * ones. The publisher waits for the producer's own outcome of each record (see {@link SendLimits}),
 * so these settings, not a deadline of the publisher, decide how long a record is tried.
 */
final class ProducerSettings {

  private static final ConfigDef PRODUCER = ProducerConfig.configDef();
  private static final int KAFKA_DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

  /**
   * The publisher's {@code reconnect.backoff.max.ms}: 10 s instead of Kafka's 1 s. While a broker
   * is down, every connection attempt makes the client log a line or two (NetworkClient); the
   * attempts back off exponentially from {@code reconnect.backoff.ms} (50 ms) to this, so an outage
   * logs about one line in 10 s per producer instead of two a second, and a broker that is back is
   * found again within about 10 s.
   */
  static final int DEFAULT_RECONNECT_BACKOFF_MAX_MS = 10_000;

  private ProducerSettings() {}

  /**
   * The effective producer configuration, unmodifiable.
   *
   * @throws IllegalArgumentException if a setting is not allowed, contradicts another or cannot be
   *     parsed
   * @throws IllegalStateException if no bootstrap servers are set
   */
  static Map<String, Object> effective(
      Map<String, Object> user, String bootstrapServers, Duration sendTimeout) {
    Map<String, Object> config = new LinkedHashMap<>(user);
    for (String owned :
        new String[] {
          ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG
        }) {
      if (config.containsKey(owned)) {
        throw new IllegalArgumentException(
            "producerConfig must not set "
                + owned
                + " (the publisher sends String keys and byte[] values without transactions) but"
                + " did");
      }
    }
    Object configured = config.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
    if (bootstrapServers != null) {
      if (configured != null && !configured.toString().equals(bootstrapServers)) {
        throw new IllegalArgumentException(
            "bootstrapServers must be the same as bootstrap.servers in producerConfig ("
                + configured
                + ") but was "
                + bootstrapServers
                + "; set one of them");
      }
      config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    } else if (configured == null || configured.toString().isBlank()) {
      throw new IllegalStateException(
          "bootstrapServers (or bootstrap.servers in producerConfig) must be set but was not");
    }
    long sendTimeoutMs = sendTimeout.toMillis();
    config.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
    config.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
    config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, sendTimeoutMs);
    // The publisher waits for every record's acknowledgement before it returns the batch, so the
    // relay's batch is already the unit of batching: Kafka 4's default linger.ms=5 only delays that
    // acknowledgement (8.3-8.6 ms instead of 1.9-2.3 ms per batch of 100; see the README).
    config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 0);
    // A relay batch of 500 is ~150 KB over a few partitions: in Kafka's 16 KiB batches it took 5.1
    // ms to acknowledge, in 64 KiB batches 3.6 ms (see the README).
    config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 65_536);
    config.putIfAbsent(
        ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, DEFAULT_RECONNECT_BACKOFF_MAX_MS);
    if (!config.containsKey(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)) {
      long linger = number(config, ProducerConfig.LINGER_MS_CONFIG);
      if (!config.containsKey(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)) {
        long request = Math.min(KAFKA_DEFAULT_REQUEST_TIMEOUT_MS, sendTimeoutMs - linger);
        if (request < 1) {
          throw new IllegalArgumentException(
              "sendTimeout must be longer than the producer's linger.ms ("
                  + linger
                  + " ms) but was "
                  + DurationText.of(sendTimeout));
        }
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) request);
      }
      long request = number(config, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG);
      // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
      config.put(
          ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
          (int) Math.min(Integer.MAX_VALUE, Math.max(sendTimeoutMs, linger + request)));
    }
    return Collections.unmodifiableMap(config);
  }

  /**
   * The configuration sorted by name as it may be logged, secrets hidden by {@link SecretMasking}.
   */
  static Map<String, String> masked(Map<String, Object> config) {
    Map<String, Object> shown = new TreeMap<>();
    config.forEach((name, value) -> shown.put(name, isSecret(name) ? SecretMasking.MASK : value));
    return SecretMasking.maskSettings(shown);
  }

  /** Whether the setting holds a credential: Kafka's password type, or a secret by its name. */
  static boolean isSecret(String name) {
    ConfigDef.ConfigKey key = PRODUCER.configKeys().get(name);
    return (key != null && key.type == ConfigDef.Type.PASSWORD) || SecretMasking.isSecretKey(name);
  }

  /**
   * A numeric producer setting: the configured value, or Kafka's default when it is not set.
   *
   * @throws IllegalArgumentException if the value cannot be parsed
   */
  static long number(Map<String, Object> config, String name) {
    ConfigDef.ConfigKey key = PRODUCER.configKeys().get(name);
    Object value = config.getOrDefault(name, key.defaultValue);
    try {
      return ((Number) ConfigDef.parseType(name, value, key.type)).longValue();
    } catch (ConfigException e) {
      throw new IllegalArgumentException("producerConfig: " + e.getMessage(), e);
    }
  }
}
