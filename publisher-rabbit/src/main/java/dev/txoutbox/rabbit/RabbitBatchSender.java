package dev.txoutbox.rabbit;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import dev.txoutbox.rabbit.RabbitMessageMapper.Prepared;
import dev.txoutbox.spi.BatchResults;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.RunOrder;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The plugin's batch sender: sends one batch per calling thread, mapping and sending every message
 * on a borrowed confirm-mode channel, then waiting for the confirms until the batch's {@linkplain
 * RabbitPublisher.Builder#sendTimeout deadline}. Thread-safe.
 *
 * <p>The whole batch goes out on that one channel in the batch's order, so each aggregate's events
 * reach their queues in sequence order. Once an event fails (it cannot be converted, its exchange
 * is missing, or the broker already returned or nacked it), the later events of its aggregate are
 * not sent; after the confirms, {@link RunOrder#enforce} makes sure none of the later events of a
 * failed aggregate is reported published, whenever the failure became known.
 */
final class RabbitBatchSender implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RabbitBatchSender.class);

  private final RabbitPublisherConfig config;
  private final RabbitMessageMapper mapper;
  private final KnownExchanges exchanges = new KnownExchanges();
  private final ChannelPool channels;
  private final RabbitConnection connection;

  RabbitBatchSender(RabbitPublisherConfig config) {
    this.config = config;
    this.mapper = new RabbitMessageMapper(config.router(), config.maxMessageBytes());
    this.channels = new ChannelPool(this::channelClosed);
    this.connection = new RabbitConnection(config, exchanges::forgetAll);
  }

  /** Where {@code message} would go, or null if its router names no route. Never throws. */
  RabbitRouter.Route routeOf(OutboxMessage message) {
    return mapper.routeOf(message);
  }

  /** Sends {@code batch} and returns one outcome per message, in order. */
  List<PublishResult> send(List<OutboxMessage> batch) throws InterruptedException {
    return RunOrder.enforce(batch, sendInOrder(batch));
  }

  private List<PublishResult> sendInOrder(List<OutboxMessage> batch) throws InterruptedException {
    PublishResult[] results = new PublishResult[batch.size()];
    ConfirmChannel channel;
    Connection open;
    try {
      open = connection.get();
      String blocked = connection.blockedReason();
      if (blocked != null) {
        log.debug("Not sending {} messages: RabbitMQ blocks publishing: {}", batch.size(), blocked);
        return BatchResults.fillUnset(
            results, RabbitFailureClassifier.blocked(config.endpoint(), blocked));
      }
      channel = channels.borrow(open);
    } catch (IOException | TimeoutException | ShutdownSignalException e) {
      // Per batch, so DEBUG: the relay reports the outage once, and the connection its loss.
      log.debug("Cannot publish to RabbitMQ at {}: {}", config.endpoint(), e.toString());
      return BatchResults.fillUnset(
          results, RabbitFailureClassifier.unreachable(config.endpoint(), e));
    }
    ConfirmTracker tracker = new ConfirmTracker(batch, config.unroutableIsPermanent());
    boolean reusable = false;
    PublishResult notSent;
    channel.begin(tracker);
    try {
      long deadline = System.nanoTime() + config.sendTimeout().toNanos();
      notSent = sendAll(batch, results, open, channel, tracker);
      boolean allConfirmed = tracker.await(deadline);
      if (!allConfirmed) {
        String blocked = connection.blockedReason();
        boolean answered = tracker.brokerAnswered();
        tracker.expire(
            RabbitFailureClassifier.confirmTimedOut(
                config.sendTimeout(), config.endpoint(), blocked, answered));
        if (blocked == null && !answered) {
          connection.abandon(open); // else closing the channel would wait for the silent broker
        }
      }
      reusable = notSent == null && allConfirmed;
      tracker.copyTo(results);
    } finally {
      channel.end();
      channels.giveBack(channel, reusable);
    }
    return BatchResults.fillUnset(
        results,
        notSent != null
            ? notSent
            : PublishResult.retryable("not sent: the RabbitMQ channel failed"));
  }

  /**
   * Converts and sends each message in turn; a message that can never be sent (including one whose
   * content header does not fit the connection's frame, {@link ContentHeaderLimit}), or whose
   * exchange is missing, gets its result at once, and so does every later message of its aggregate,
   * which is not sent ({@link RunOrder#NOT_SENT}). So does a message of an aggregate the broker
   * already returned or nacked a message of.
   *
   * @return null if every message was sent or settled, otherwise the outcome of those that were not
   *     sent because sending broke off
   */
  private PublishResult sendAll(
      List<OutboxMessage> batch,
      PublishResult[] results,
      Connection open,
      ConfirmChannel channel,
      ConfirmTracker tracker) {
    Map<String, Boolean> exchangeExists = new HashMap<>();
    for (int i = 0; i < results.length; i++) {
      PublishResult heldBack = tracker.heldBack(batch.get(i));
      if (heldBack != null) {
        results[i] = heldBack;
        continue;
      }
      Prepared message = mapper.prepare(batch.get(i));
      PublishResult refused =
          message.failure() != null
              ? message.failure()
              : ContentHeaderLimit.check(
                  message.properties(), message.body().length, open.getFrameMax());
      if (refused != null) {
        results[i] = refused;
        tracker.failedBeforeSending(batch.get(i), results[i]);
        continue;
      }
      try {
        if (!exchangeExists(open, message.exchange(), exchangeExists)) {
          results[i] = tracker.unroutable("exchange '" + message.exchange() + "' does not exist");
          tracker.failedBeforeSending(batch.get(i), results[i]);
          continue;
        }
      } catch (IOException | ShutdownSignalException e) {
        log.debug("Cannot check RabbitMQ exchange '{}': {}", message.exchange(), e.toString());
        return RabbitFailureClassifier.sendFailed(e);
      }
      tracker.beforePublish(i, channel.nextPublishSeqNo(), batch.get(i).id().toString());
      try {
        channel.publish(
            message.exchange(), message.routingKey(), message.properties(), message.body());
      } catch (IOException | RuntimeException e) {
        log.debug("Sending to RabbitMQ at {} failed: {}", config.endpoint(), e.toString());
        tracker.publishFailed(e);
        return RabbitFailureClassifier.sendFailed(e);
      }
    }
    return null;
  }

  private boolean exchangeExists(Connection open, String exchange, Map<String, Boolean> checked)
      throws IOException {
    Boolean exists = checked.get(exchange);
    if (exists == null) {
      exists = exchanges.exists(open, exchange);
      checked.put(exchange, exists);
    }
    return exists;
  }

  private void channelClosed(ShutdownSignalException cause) {
    if (KnownExchanges.isNotFound(cause)) {
      exchanges.forgetAll(); // an exchange was deleted since it was checked
    }
  }

  @Override
  public void close() {
    channels.close();
    connection.close();
  }
}
