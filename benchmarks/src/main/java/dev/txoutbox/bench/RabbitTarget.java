package dev.txoutbox.bench;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.spi.Publisher;
import java.util.Map;
import java.util.UUID;

/** The RabbitMQ service: a durable direct exchange bound to one durable queue. */
final class RabbitTarget implements Target {

  private final String uri;
  private final String exchange = "bench-" + UUID.randomUUID();
  private final String queue = exchange + "-q";
  private final Connection admin;

  RabbitTarget(String uri) throws Exception {
    this.uri = uri;
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(uri);
    admin = factory.newConnection("txoutbox-bench-admin");
    try (Channel ch = admin.createChannel()) {
      ch.exchangeDeclare(exchange, BuiltinExchangeType.DIRECT, true);
      ch.queueDeclare(queue, true, false, false, null);
      ch.queueBind(queue, exchange, "order.created");
    }
  }

  @Override
  public String name() {
    return "rabbitmq";
  }

  @Override
  public Publisher publisher() {
    return Publishers.create("rabbit", Map.of("amqp-uri", uri, "exchange", exchange));
  }

  @Override
  public void afterRun() {
    try (Channel ch = admin.createChannel()) {
      ch.queuePurge(queue);
    } catch (Exception e) {
      throw new IllegalStateException("cannot purge " + queue, e);
    }
  }

  @Override
  public void close() {
    try (Channel ch = admin.createChannel()) {
      ch.queueDelete(queue);
      ch.exchangeDelete(exchange);
      admin.close();
    } catch (Exception e) {
      // the broker cleans up nothing else; a leftover bench queue is harmless
    }
  }
}
