package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxHeaders;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The consumer side of {@link KafkaPublisher}'s headers: reads a received record's headers back
 * into the map of names to values the publisher wrote ({@link OutboxHeaders#of} as UTF-8 bytes),
 * the input of outbox-inbox's {@code InboxEvent.from(...)}. Needs only kafka-clients, so a Kafka
 * consumer reads events without any other broker's client. Stateless and thread-safe.
 *
 * <pre>{@code
 * InboxEvent event = InboxEvent.from(KafkaHeaders.read(record));
 * }</pre>
 */
public final class KafkaHeaders {

  private KafkaHeaders() {}

  /**
   * Every header of {@code record}, name to its value decoded as UTF-8; where a name repeats, the
   * last one counts (as {@link Headers#lastHeader(String)}). A header with a null value is left
   * out: the publisher never writes one.
   *
   * @return the headers in the record's order; a new mutable map
   * @throws NullPointerException if {@code record} is null
   */
  public static Map<String, String> read(ConsumerRecord<?, ?> record) {
    return read(Objects.requireNonNull(record, "record").headers());
  }

  /**
   * Every header of {@code headers}, as {@link #read(ConsumerRecord)}.
   *
   * @throws NullPointerException if {@code headers} is null
   */
  public static Map<String, String> read(Headers headers) {
    Objects.requireNonNull(headers, "headers");
    Map<String, String> values = new LinkedHashMap<>();
    for (Header header : headers) {
      if (header.value() != null) {
        values.remove(header.key()); // the last one counts, in its own position
        values.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
      }
    }
    return values;
  }
}
