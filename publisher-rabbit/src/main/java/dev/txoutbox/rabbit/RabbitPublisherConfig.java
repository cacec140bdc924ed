package dev.txoutbox.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.ConnectionFactory;
import java.time.Duration;

/**
 * The validated, effective configuration of one {@link RabbitPublisher}. Immutable once built: the
 * connection factory is a private copy that nothing else holds.
 *
 * @param connectionFactory a private copy of the caller's factory, automatic recovery disabled
 * @param endpoint where it connects, for logs, without password
 * @param connectionName the client-provided connection name shown by the broker
 * @param router routes each event
 * @param declaration the exchange to declare on every (re)connect, or {@code null}
 * @param confirmTimeout the longest a batch waits for its confirms
 * @param unroutableIsPermanent whether an unroutable message is a dead letter at once
 * @param maxMessageBytes the largest body sent; larger ones fail permanently
 */
record RabbitPublisherConfig(
    ConnectionFactory connectionFactory,
    String endpoint,
    String connectionName,
    RabbitRouter router,
    ExchangeDeclaration declaration,
    Duration confirmTimeout,
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
        + ", declare="
        + (declaration == null
            ? "none"
            : declaration.type().getType()
                + " '"
                + declaration.name()
                + "'"
                + (declaration.durable() ? " durable" : ""))
        + ", confirmTimeout="
        + confirmTimeout
        + ", unroutableIsPermanent="
        + unroutableIsPermanent
        + ", maxMessageBytes="
        + maxMessageBytes;
  }
}
