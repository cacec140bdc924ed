package dev.txoutbox.rabbit;

import com.rabbitmq.client.AMQP;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Routing;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The plugin's message mapper: turns outbox messages into AMQP messages, with the destination from
 * the {@link RabbitRouter}, the identity headers of {@link OutboxHeaders#of} (stored headers the
 * broker would interpret renamed by {@link BrokerHeaderNames}) and AMQP's own properties, checked
 * against AMQP's limits so that a message that can never be sent fails alone, before anything is
 * sent. Thread-safe.
 */
final class RabbitMessageMapper {

  /** AMQP short strings (names, routing keys, property values) hold at most 255 bytes. */
  static final int MAX_SHORT_STRING_BYTES = 255;

  static final String CONTENT_TYPE = "application/json";
  static final int PERSISTENT = 2;

  /** How routing failures name the router. */
  private static final String ROUTER_NAME = "RabbitMQ router";

  private final RabbitRouter router;
  private final int maxMessageBytes;

  RabbitMessageMapper(RabbitRouter router, int maxMessageBytes) {
    this.router = router;
    this.maxMessageBytes = maxMessageBytes;
  }

  /** A message ready to send, or the reason why it never can be. */
  record Prepared(
      String exchange,
      String routingKey,
      AMQP.BasicProperties properties,
      byte[] body,
      PublishResult failure) {

    static Prepared failed(String reason) {
      return failed(PublishResult.permanent(reason));
    }

    static Prepared failed(PublishResult failure) {
      return new Prepared(null, null, null, null, failure);
    }
  }

  /**
   * Where {@link #prepare} would send {@code message}, or null if its router names no route. Never
   * throws.
   */
  RabbitRouter.Route routeOf(OutboxMessage message) {
    Routing<RabbitRouter.Route> routing = Routing.route(message, ROUTER_NAME, router::route);
    return routing.routed() ? routing.destination() : null;
  }

  /**
   * Routes and converts {@code message}; never throws for a bad message. A router that names no
   * route fails the message as {@link Routing} says.
   */
  Prepared prepare(OutboxMessage message) {
    Routing<RabbitRouter.Route> routing = Routing.route(message, ROUTER_NAME, router::route);
    if (!routing.routed()) {
      return Prepared.failed(routing.failure());
    }
    RabbitRouter.Route route = routing.destination();
    String tooLong =
        firstTooLong(
            "exchange", route.exchange(),
            "routing key", route.routingKey(),
            "event type", message.eventType());
    if (tooLong != null) {
      return Prepared.failed(tooLong);
    }
    Map<String, Object> headers = new LinkedHashMap<>();
    OutboxHeaders.of(message)
        .forEach((name, value) -> headers.put(BrokerHeaderNames.onTheWire(name), value));
    for (String name : headers.keySet()) {
      if (exceedsShortString(name)) {
        return Prepared.failed("header name longer than 255 bytes: " + name.substring(0, 40));
      }
    }
    byte[] body = message.payloadBytes();
    if (body.length > maxMessageBytes) {
      return Prepared.failed(
          "message of " + body.length + " bytes exceeds maxMessageBytes " + maxMessageBytes);
    }
    return new Prepared(
        route.exchange(), route.routingKey(), properties(message, headers), body, null);
  }

  private static AMQP.BasicProperties properties(
      OutboxMessage message, Map<String, Object> headers) {
    return new AMQP.BasicProperties.Builder()
        .messageId(message.id().toString())
        .type(message.eventType())
        .timestamp(Date.from(message.createdAt()))
        .contentType(CONTENT_TYPE)
        .deliveryMode(PERSISTENT)
        .headers(headers)
        .build();
  }

  private static String firstTooLong(String... namesAndValues) {
    for (int i = 0; i < namesAndValues.length; i += 2) {
      if (exceedsShortString(namesAndValues[i + 1])) {
        return namesAndValues[i] + " longer than 255 bytes";
      }
    }
    return null;
  }

  /** Whether {@code s} is longer than an AMQP short string can hold (a char is at most 3 bytes). */
  static boolean exceedsShortString(String s) {
    return s.length() > MAX_SHORT_STRING_BYTES / 3 && utf8Length(s) > MAX_SHORT_STRING_BYTES;
  }

  /** The length of {@code s} in UTF-8 bytes, the unit of AMQP's limits: this module's one count. */
  static int utf8Length(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
