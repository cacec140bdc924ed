package dev.txoutbox.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import dev.txoutbox.spi.OutboxMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A uniquely named topic exchange and a queue bound to it, with a consumer recording every
 * delivery; deleted on close, so tests never see each other's messages.
 */
final class TestTopology implements AutoCloseable {

  private final String exchange;
  private final String queue;
  private final Connection connection;
  private final Channel channel;
  private final List<String> otherExchanges = new ArrayList<>();
  private final BlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
  private final Set<String> messageIds = ConcurrentHashMap.newKeySet();
  private final AtomicInteger deliveryCount = new AtomicInteger();

  private TestTopology(
      String prefix, boolean consume, Map<String, Object> queueArguments, String... bindingKeys)
      throws IOException, TimeoutException {
    String unique = prefix + "." + UUID.randomUUID();
    this.exchange = "txoutbox.test." + unique;
    this.queue = "txoutbox.test." + unique;
    this.connection = RabbitTestBroker.factory().newConnection("txoutbox-test-consumer-" + unique);
    this.channel = connection.createChannel();
    channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, false);
    channel.queueDeclare(queue, true, false, false, queueArguments);
    for (String key : bindingKeys) {
      channel.queueBind(queue, exchange, key);
    }
    if (!consume) {
      return;
    }
    channel.basicConsume(
        queue,
        true,
        (tag, delivery) -> {
          deliveries.add(delivery);
          messageIds.add(delivery.getProperties().getMessageId());
          deliveryCount.incrementAndGet();
        },
        tag -> {});
  }

  /** A topic exchange and a queue bound to it with {@code bindingKeys}. */
  static TestTopology create(String prefix, String... bindingKeys) throws Exception {
    return new TestTopology(prefix, true, Map.of(), bindingKeys);
  }

  /** Like {@link #create}, the queue declared with {@code queueArguments} and not consumed. */
  static TestTopology withQueueArguments(
      String prefix, Map<String, Object> queueArguments, String... bindingKeys) throws Exception {
    return new TestTopology(prefix, false, new HashMap<>(queueArguments), bindingKeys);
  }

  String exchange() {
    return exchange;
  }

  String queue() {
    return queue;
  }

  /** The test's own channel, for declarations. */
  Channel channel() {
    return channel;
  }

  /** Binds the queue with one more key. */
  void bind(String bindingKey) throws IOException {
    channel.queueBind(queue, exchange, bindingKey);
  }

  /** Declares one more topic exchange bound to the queue with {@code bindingKey}. */
  String declareOtherExchange(String suffix, String bindingKey) throws IOException {
    String name = exchange + "." + suffix;
    channel.exchangeDeclare(name, BuiltinExchangeType.TOPIC, false);
    channel.queueBind(queue, name, bindingKey);
    otherExchanges.add(name);
    return name;
  }

  /** Up to {@code count} deliveries, waiting at most {@code timeout} for them. */
  List<Delivery> take(int count, Duration timeout) throws InterruptedException {
    List<Delivery> taken = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (taken.size() < count) {
      Delivery next = deliveries.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      if (next == null) {
        break;
      }
      taken.add(next);
    }
    return taken;
  }

  /** The message ids of up to {@code count} deliveries, waiting at most {@code timeout}. */
  List<String> takeIds(int count, Duration timeout) throws InterruptedException {
    return take(count, timeout).stream().map(d -> d.getProperties().getMessageId()).toList();
  }

  /**
   * A router that sends the events {@code elsewhere} picks to exchange {@code other} and the rest
   * to this topology's exchange, each with its event type as routing key.
   */
  RabbitRouter routing(Predicate<OutboxMessage> elsewhere, String other) {
    return m ->
        Optional.of(new RabbitRouter.Route(elsewhere.test(m) ? other : exchange, m.eventType()));
  }

  /** The distinct message ids received so far. */
  Set<String> receivedIds() {
    return messageIds;
  }

  /** How many deliveries arrived so far, duplicates included. */
  int deliveryCount() {
    return deliveryCount.get();
  }

  @Override
  public void close() throws IOException {
    try {
      channel.queueDelete(queue);
      channel.exchangeDelete(exchange);
      for (String other : otherExchanges) {
        channel.exchangeDelete(other);
      }
    } finally {
      connection.abort();
    }
  }
}
