package dev.txoutbox.rabbit;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * One channel in confirm mode whose confirms, returns and closing are reported to the batch that
 * currently owns it. Used by one publishing thread at a time (the pool hands it out exclusively);
 * the listeners run on the connection's thread.
 */
final class ConfirmChannel {

  private final Channel channel;
  private volatile ConfirmTracker current;

  private ConfirmChannel(Channel channel) {
    this.channel = channel;
  }

  /**
   * Opens a channel on {@code connection} and puts it in confirm mode.
   *
   * @param onClose told whenever the channel closes, with the reason
   * @throws IOException if the channel cannot be opened
   */
  static ConfirmChannel open(Connection connection, Consumer<ShutdownSignalException> onClose)
      throws IOException {
    Channel channel = RabbitConnection.newChannel(connection);
    ConfirmChannel confirmChannel = new ConfirmChannel(channel);
    channel.addShutdownListener(
        cause -> {
          ConfirmTracker tracker = confirmChannel.current;
          if (tracker != null) {
            tracker.channelClosed(cause);
          }
          onClose.accept(cause);
        });
    channel.addReturnListener(
        returned -> {
          ConfirmTracker tracker = confirmChannel.current;
          if (tracker != null) {
            tracker.returned(
                returned.getProperties().getMessageId(),
                returned.getReplyCode(),
                returned.getReplyText(),
                "exchange '"
                    + returned.getExchange()
                    + "', routing key '"
                    + returned.getRoutingKey()
                    + "'");
          }
        });
    channel.addConfirmListener(
        (tag, multiple) -> confirmChannel.confirmed(tag, multiple, true),
        (tag, multiple) -> confirmChannel.confirmed(tag, multiple, false));
    try {
      channel.confirmSelect();
    } catch (IOException | RuntimeException e) {
      abortQuietly(channel);
      throw e;
    }
    return confirmChannel;
  }

  /** Hands the channel to {@code tracker}'s batch. */
  void begin(ConfirmTracker tracker) {
    current = tracker;
  }

  /** Takes the channel back from the batch; late events are ignored from now on. */
  void end() {
    current = null;
  }

  /** The delivery tag the next message sent on this channel will get. */
  long nextPublishSeqNo() {
    return channel.getNextPublishSeqNo();
  }

  /** Sends one persistent mandatory message. */
  void publish(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body)
      throws IOException {
    channel.basicPublish(exchange, routingKey, true, properties, body);
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  /** Closes the channel without waiting for anything still unconfirmed. */
  void abort() {
    abortQuietly(channel);
  }

  private void confirmed(long tag, boolean multiple, boolean ack) {
    ConfirmTracker tracker = current;
    if (tracker != null) {
      tracker.confirmed(tag, multiple, ack);
    }
  }

  private static void abortQuietly(Channel channel) {
    try {
      channel.abort();
    } catch (IOException | RuntimeException ignored) {
      // closing is best effort: the connection's close releases the channel anyway
    }
  }
}
