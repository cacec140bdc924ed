package dev.txoutbox.rabbit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.txoutbox.rabbit.RabbitPublisherConfig.ExchangeDeclaration;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher's one connection, opened on first use and opened again on the first use after it
 * was lost. The client's own automatic recovery is off on this connection: a lost connection fails
 * the batches in flight, and the next batch reconnects. Thread-safe.
 */
final class RabbitConnection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RabbitConnection.class);
  private static final int CLOSE_TIMEOUT_MILLIS = 10_000;

  /**
   * How long {@link #abandon} waits for the broker to answer the close before closing the socket.
   */
  private static final int ABANDON_TIMEOUT_MILLIS = 1_000;

  private final RabbitPublisherConfig config;
  private final Runnable onConnect;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile Connection connection;
  private volatile String blockedReason;
  private volatile boolean closed;

  /**
   * @param onConnect run after every successful (re)connect, before the connection is used
   */
  RabbitConnection(RabbitPublisherConfig config, Runnable onConnect) {
    this.config = config;
    this.onConnect = onConnect;
  }

  /**
   * The open connection, connecting first if there is none. One thread connects at a time; the
   * others wait for it, interruptibly.
   *
   * @throws IOException if the broker cannot be reached or refuses the connection
   * @throws TimeoutException if connecting takes longer than the factory's connection timeout
   * @throws InterruptedException if interrupted while another thread connects
   * @throws IllegalStateException if closed
   */
  Connection get() throws IOException, TimeoutException, InterruptedException {
    Connection current = connection;
    if (current != null && current.isOpen()) {
      return current;
    }
    lock.lockInterruptibly();
    try {
      if (closed) {
        throw new IllegalStateException("RabbitMQ publisher is closed");
      }
      current = connection;
      if (current != null && current.isOpen()) {
        return current;
      }
      connection = null;
      Connection fresh = open();
      connection = fresh;
      if (closed) { // close() ran while connecting and may not have seen this connection
        fresh.abort();
        throw new IllegalStateException("RabbitMQ publisher is closed");
      }
      return fresh;
    } finally {
      lock.unlock();
    }
  }

  /** Why the broker blocks publishing on the current connection (a resource alarm), or null. */
  String blockedReason() {
    return blockedReason;
  }

  private Connection open() throws IOException, TimeoutException {
    Connection fresh = config.connectionFactory().newConnection(config.connectionName());
    try {
      blockedReason = null;
      fresh.addBlockedListener(
          reason -> {
            log.warn("RabbitMQ at {} blocks publishing: {}", config.endpoint(), reason);
            blockedReason = reason;
          },
          () -> {
            log.info("RabbitMQ at {} accepts publishing again", config.endpoint());
            blockedReason = null;
          });
      fresh.addShutdownListener(
          cause -> {
            if (!cause.isInitiatedByApplication()) {
              log.warn(
                  "RabbitMQ connection to {} lost ({}); the next batch reconnects",
                  config.endpoint(),
                  cause.getMessage());
            }
          });
      declare(fresh, config.declaration());
      onConnect.run();
    } catch (IOException | RuntimeException e) {
      fresh.abort();
      throw e;
    }
    log.info(
        "RabbitMQ publisher connected to {} as '{}'", config.endpoint(), config.connectionName());
    return fresh;
  }

  private static void declare(Connection connection, ExchangeDeclaration declaration)
      throws IOException {
    if (declaration == null) {
      return;
    }
    Channel channel = newChannel(connection);
    try {
      channel.exchangeDeclare(declaration.name(), declaration.type(), declaration.durable());
    } finally {
      channel.abort();
    }
  }

  /**
   * A new channel on {@code connection}.
   *
   * @throws IOException if it cannot be opened, or the connection has no free channel left
   */
  static Channel newChannel(Connection connection) throws IOException {
    Channel channel = connection.createChannel();
    if (channel == null) {
      throw new IOException("RabbitMQ connection has no free channel (channel_max reached)");
    }
    return channel;
  }

  /**
   * Drops {@code silent}, a connection on which the broker answered nothing in time: waits at most
   * a second for the broker, then closes the socket. Every channel on it closes, so nothing blocks
   * on them; the next {@link #get()} opens a new connection.
   */
  void abandon(Connection silent) {
    log.debug("RabbitMQ at {} answers nothing; dropping the connection", config.endpoint());
    silent.abort(ABANDON_TIMEOUT_MILLIS);
  }

  /**
   * Closes the connection; idempotent. Does not wait for a connection attempt in progress: that
   * attempt closes what it opened. Later {@link #get()} calls fail.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Connection current = connection;
    if (current != null) {
      try {
        current.close(CLOSE_TIMEOUT_MILLIS);
      } catch (IOException | RuntimeException e) {
        current.abort();
      }
    }
  }
}
