package dev.txoutbox.rabbit;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;

/**
 * Confirm-mode channels, each lent to one publishing thread at a time. The pool grows to the
 * largest number of concurrent publishes (the relay's worker count) and no further; a channel that
 * failed or still awaits confirms is closed instead of being returned. Thread-safe.
 */
final class ChannelPool {

  private final Deque<ConfirmChannel> idle = new ConcurrentLinkedDeque<>();
  private final Consumer<ShutdownSignalException> onChannelClose;
  private volatile boolean closed;

  /**
   * @param onChannelClose told whenever one of the pool's channels closes
   */
  ChannelPool(Consumer<ShutdownSignalException> onChannelClose) {
    this.onChannelClose = onChannelClose;
  }

  /**
   * An open channel of {@code connection} for the caller's exclusive use.
   *
   * @throws IOException if a new channel cannot be opened
   */
  ConfirmChannel borrow(Connection connection) throws IOException {
    ConfirmChannel channel;
    while ((channel = idle.pollFirst()) != null) {
      if (channel.isOpen()) {
        return channel;
      }
    }
    return ConfirmChannel.open(connection, onChannelClose);
  }

  /**
   * Takes {@code channel} back: kept for the next batch if {@code reusable} and still open,
   * otherwise closed.
   */
  void giveBack(ConfirmChannel channel, boolean reusable) {
    if (reusable && channel.isOpen() && !closed) {
      idle.offerFirst(channel);
      if (!closed) {
        return;
      }
      idle.remove(channel);
    }
    channel.abort();
  }

  /** Closes every idle channel; channels given back later are closed too. */
  void close() {
    closed = true;
    ConfirmChannel channel;
    while ((channel = idle.pollFirst()) != null) {
      channel.abort();
    }
  }
}
