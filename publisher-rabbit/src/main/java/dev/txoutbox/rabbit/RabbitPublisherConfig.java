package dev.txoutbox.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.spi.DurationText;
import java.time.Duration;

/**
 * The validated, effective configuration of one {@link RabbitPublisher}. Immutable once built: the
 * connection factory is a private copy that nothing else holds.
 *
 * @param connectionFactory a private copy of the caller's factory, automatic recovery disabled
 * @param endpoint where it connects, for logs, without password
 * @param connectionName the client-provided connection name shown by the broker
 * @param router routes each event
 * @param routing how events are routed, for {@link #toString()}
 * @param declaration the exchange to declare on every (re)connect, or {@code null}
 * @param sendTimeout the longest one batch may take, from its first send to its last confirm
 * @param unroutableIsPermanent whether an unroutable message is a dead letter at once
 * @param maxMessageBytes the largest body sent; larger ones fail permanently
 */
record RabbitPublisherConfig(
    ConnectionFactory connectionFactory,
    String endpoint,
    String connectionName,
    RabbitRouter router,
    String routing,
    ExchangeDeclaration declaration,
    Duration sendTimeout,
    boolean unroutableIsPermanent,
    int maxMessageBytes) {

  /** An exchange the publisher declares whenever it connects. */
  record ExchangeDeclaration(String name, BuiltinExchangeType type, boolean durable) {}

  @Override
  public String toString() {
    return "endpoint="
        + endpoint
        + ", connectionName="
        + connectionName
        + ", "
        + routing
        + ", declare="
        + (declaration == null
            ? "none"
            : declaration.type().getType()
                + " '"
                + declaration.name()
                + "'"
                + (declaration.durable() ? " durable" : ""))
        + ", sendTimeout="
        + DurationText.of(sendTimeout)
        + ", unroutableIsPermanent="
        + unroutableIsPermanent
        + ", maxMessageBytes="
        + maxMessageBytes;
  }
}
