package dev.txoutbox.rabbit;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Routing;
import java.util.Objects;
import java.util.Optional;

/**
 * Chooses where an outbox event goes: the exchange and the routing key of its RabbitMQ message.
 * Implementations must be thread-safe and should be pure functions of the message: the publisher
 * calls them from several threads at once, once per publish attempt.
 *
 * <p>A router that throws, or returns no route, makes that event a permanent failure (a dead
 * letter), as {@link Routing} says for every plugin; its neighbours in the batch are still sent.
 */
@FunctionalInterface
public interface RabbitRouter {

  /**
   * The destination of {@code message}.
   *
   * @param message the event to route
   * @return where to publish it, or empty if the event has nowhere to go; never {@code null}
   */
  Optional<Route> route(OutboxMessage message);

  /**
   * The default router: every event goes to {@code exchange} with its event type as the routing key
   * (so {@code order.created} matches a topic binding {@code order.*}).
   *
   * @param exchange the exchange; {@code ""} is the default exchange, which routes to the queue
   *     named like the routing key
   * @return a router; thread-safe
   * @throws NullPointerException if {@code exchange} is null
   */
  static RabbitRouter byEventType(String exchange) {
    Objects.requireNonNull(exchange, "exchange");
    return message -> Optional.of(new Route(exchange, message.eventType()));
  }

  /**
   * An exchange and a routing key. Immutable and thread-safe.
   *
   * @param exchange the exchange name; {@code ""} is the default exchange
   * @param routingKey the routing key, at most 255 UTF-8 bytes
   */
  record Route(String exchange, String routingKey) {

    /**
     * @throws NullPointerException if an argument is null
     */
    public Route {
      Objects.requireNonNull(exchange, "exchange");
      Objects.requireNonNull(routingKey, "routingKey");
    }
  }
}
