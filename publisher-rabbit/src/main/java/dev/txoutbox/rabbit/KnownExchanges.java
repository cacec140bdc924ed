package dev.txoutbox.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exchanges known to exist. Publishing to a missing exchange makes RabbitMQ close the channel,
 * which would fail every other message of the batch; so an exchange is checked once with a passive
 * declare on a channel of its own before the first message goes to it. Forgotten on reconnect and
 * whenever a channel is closed for a missing exchange. Thread-safe.
 */
final class KnownExchanges {

  private static final int NOT_FOUND = 404;

  private final Set<String> known = ConcurrentHashMap.newKeySet();

  /**
   * Whether {@code exchange} exists, asking the broker if it is not known yet.
   *
   * @throws IOException if the broker cannot be asked
   */
  boolean exists(Connection connection, String exchange) throws IOException {
    if (exchange.isEmpty() || known.contains(exchange)) {
      return true; // "" is the default exchange, which always exists
    }
    Channel channel = RabbitConnection.newChannel(connection);
    try {
      channel.exchangeDeclarePassive(exchange);
      known.add(exchange);
      return true;
    } catch (IOException e) {
      if (e.getCause() instanceof ShutdownSignalException signal && isNotFound(signal)) {
        return false;
      }
      throw e;
    } finally {
      channel.abort();
    }
  }

  /** Forgets every exchange, so each is checked again before its next use. */
  void forgetAll() {
    known.clear();
  }

  /** Whether a channel was closed because something it named does not exist. */
  static boolean isNotFound(ShutdownSignalException signal) {
    return !signal.isHardError()
        && signal.getReason() instanceof AMQP.Channel.Close close
        && close.getReplyCode() == NOT_FOUND;
  }
}
