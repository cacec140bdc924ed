package dev.txoutbox.cli;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A uniquely named topic exchange and a queue bound to all of it on the local RabbitMQ, consumed
 * from the start; both are deleted on close.
 */
final class RabbitQueue implements AutoCloseable {

  static final String URI = "amqp://guest:guest@127.0.0.1:5672/%2F";

  final String exchange = "txoutbox-cli-test-" + UUID.randomUUID();
  final String queue = exchange + "-q";
  private final Set<String> received = ConcurrentHashMap.newKeySet();
  private final AtomicLong deliveries = new AtomicLong();
  private final Connection connection;
  private final Channel channel;

  RabbitQueue() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(URI);
    connection = factory.newConnection("txoutbox-cli-test");
    channel = connection.createChannel();
    channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
    channel.queueDeclare(queue, false, false, false, null);
    channel.queueBind(queue, exchange, "#");
    channel.basicConsume(
        queue,
        true,
        (tag, delivery) -> {
          received.add(delivery.getProperties().getMessageId());
          deliveries.incrementAndGet();
        },
        tag -> {});
  }

  /** Distinct event ids received so far. */
  Set<String> received() {
    return Set.copyOf(received);
  }

  int receivedCount() {
    return received.size();
  }

  long deliveries() {
    return deliveries.get();
  }

  @Override
  public void close() throws Exception {
    try {
      channel.queueDelete(queue);
      channel.exchangeDelete(exchange);
    } finally {
      connection.close();
    }
  }
}
