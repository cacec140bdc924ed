package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxMessage;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Chooses the Kafka topic of an outbox message, the {@code <Broker>Router} of the plugin anatomy.
 * An empty result means the message has no route: the publisher reports it as a permanent failure
 * (the event becomes a dead letter) and sends the rest of the batch. A router that throws, returns
 * {@code null} or a blank topic is treated the same way (the rule every plugin follows, {@link
 * dev.txoutbox.spi.Routing}), and so is a topic name Kafka does not allow.
 *
 * <p>The record's key is always the aggregate id, and Kafka keeps order within one partition only.
 * To keep each aggregate's events in order (as the relay's per-aggregate ordered modes need), a
 * router must give every event of one aggregate the same topic: decide by the aggregate type and
 * id, never by the event type or the payload. The factories below decide by the aggregate type.
 *
 * <p>Implementations must be thread-safe and fast: the publisher calls them for every message, from
 * several threads at once. The factories below return thread-safe routers.
 */
@FunctionalInterface
public interface KafkaRouter {

  /**
   * The topic for {@code message}, or empty if it has none.
   *
   * @param message the message to route, never null
   */
  Optional<String> route(OutboxMessage message);

  /** Routes every message to the topic named like its aggregate type ({@code order → order}). */
  static KafkaRouter byAggregateType() {
    return withPrefix("");
  }

  /**
   * Routes every message to {@code prefix + aggregateType} ({@code "shop." + order → shop.order}).
   *
   * @throws NullPointerException if {@code prefix} is null
   */
  static KafkaRouter withPrefix(String prefix) {
    Objects.requireNonNull(prefix, "prefix");
    return message -> Optional.of(prefix + message.aggregateType());
  }

  /**
   * Routes by an explicit map from aggregate type to topic; an aggregate type missing from the map
   * has no route. The map is copied.
   *
   * @throws NullPointerException if the map, or any key or value in it, is null
   */
  static KafkaRouter fromMap(Map<String, String> topicsByAggregateType) {
    Map<String, String> topics = Map.copyOf(topicsByAggregateType);
    return message -> Optional.ofNullable(topics.get(message.aggregateType()));
  }
}
