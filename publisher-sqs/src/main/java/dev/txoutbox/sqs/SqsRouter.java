package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Chooses the SQS queue of a message. A queue is named by its URL ({@code https://...}, used as is)
 * or by its name (resolved once with {@code GetQueueUrl}, then cached). A queue whose name or URL
 * ends in {@code .fifo} is treated as a FIFO queue.
 *
 * <p>Implementations must be thread-safe, fast and free of side effects: the publisher calls {@link
 * #route} for every message of every batch, from several threads at once.
 */
@FunctionalInterface
public interface SqsRouter {

  /**
   * The queue for {@code message}.
   *
   * @return the queue's URL or name, or empty when the message has no queue. As for every plugin
   *     ({@link dev.txoutbox.spi.Routing}), a message whose router returns empty, {@code null} or a
   *     blank queue, or throws, is a permanent failure (a dead letter); the rest of the batch goes
   *     on.
   */
  Optional<String> route(OutboxMessage message);

  /**
   * Routes by {@link OutboxMessage#aggregateType()}: {@code routes} maps each aggregate type to a
   * queue URL or name. Aggregate types missing from the map have no queue.
   *
   * @param routes aggregate type to queue URL or name; copied
   * @throws NullPointerException if {@code routes} or any key or value is null
   * @throws IllegalArgumentException if {@code routes} is empty or a queue is blank
   */
  static SqsRouter byAggregateType(Map<String, String> routes) {
    Map<String, String> copy = Map.copyOf(Objects.requireNonNull(routes, "routes"));
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("routes must map at least one aggregate type but was {}");
    }
    copy.forEach(QueueResolver::requireQueue);
    return message -> Optional.ofNullable(copy.get(message.aggregateType()));
  }
}
