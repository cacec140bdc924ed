package dev.txoutbox.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import dev.txoutbox.spi.OutboxHeaders;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The consumer side of {@link RabbitPublisher}'s headers: reads a delivery's AMQP headers table
 * back into the map of names to values the publisher wrote ({@link OutboxHeaders#of}, a stored
 * header RabbitMQ would interpret, such as {@code x-death} or {@code CC}, under its renamed name
 * {@code outbox-stored-x-death}), the input of outbox-inbox's {@code InboxEvent.from(...)}. Needs
 * only amqp-client. Stateless and thread-safe.
 *
 * <pre>{@code
 * InboxEvent event = InboxEvent.from(RabbitHeaders.read(delivery));
 * }</pre>
 */
public final class RabbitHeaders {

  private RabbitHeaders() {}

  /**
   * Every header of {@code delivery}, as {@link #read(AMQP.BasicProperties)}.
   *
   * @throws NullPointerException if {@code delivery} is null
   */
  public static Map<String, String> read(Delivery delivery) {
    return read(Objects.requireNonNull(delivery, "delivery").getProperties());
  }

  /**
   * Every header in the headers table of {@code properties}, name to value as text: the broker
   * hands string values back as {@code LongString}, read as UTF-8, as is a byte array; any other
   * value (a header another sender set, such as a number) is its {@code String.valueOf}. A null
   * value is left out.
   *
   * @return the headers, in no particular order (an AMQP table keeps none); a new mutable map,
   *     empty when there is no table
   * @throws NullPointerException if {@code properties} is null
   */
  public static Map<String, String> read(AMQP.BasicProperties properties) {
    Objects.requireNonNull(properties, "properties");
    Map<String, String> values = new HashMap<>();
    Map<String, Object> table = properties.getHeaders();
    if (table != null) {
      table.forEach(
          (name, value) -> {
            if (value instanceof byte[] bytes) {
              values.put(name, new String(bytes, StandardCharsets.UTF_8));
            } else if (value != null) {
              values.put(name, value.toString()); // LongString.toString() decodes UTF-8
            }
          });
    }
    return values;
  }
}
