package dev.txoutbox.rabbit;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.ConnectionFactory;
import dev.txoutbox.rabbit.RabbitPublisherConfig.ExchangeDeclaration;
import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to RabbitMQ with publisher confirms. Thread-safe: the relay's workers may
 * call {@link #publish(List)} at the same time; each call uses a channel of its own.
 *
 * <p>Each batch is sent at once on a confirm-mode channel, as persistent ({@code delivery-mode 2})
 * and {@code mandatory} messages, then the publisher waits for the broker's confirms; from its
 * first send to its last confirm, a batch may take {@link Builder#sendTimeout(Duration)}. Each
 * message's outcome is its own:
 *
 * <ul>
 *   <li>acked by the broker: published;
 *   <li>returned as unroutable ({@code basic.return}, such as 312 NO_ROUTE), or routed to an
 *       exchange that does not exist: a failure, even though the broker also acks it; retryable
 *       unless {@link Builder#unroutableIsPermanent(boolean)};
 *   <li>nacked, not confirmed in time, or its channel closed by a channel error: a retryable
 *       failure (the message may reach consumers twice, never zero times);
 *   <li>not sent or not confirmed because the broker is unavailable (the connection cannot be
 *       opened, is lost mid-batch, or is blocked by a resource alarm): {@link
 *       PublishResult#brokerUnavailable(String, Throwable) broker unavailable}, which costs the
 *       event no attempt;
 *   <li>impossible to send (larger than {@link Builder#maxMessageBytes(int)}, a name or routing key
 *       longer than AMQP allows, properties and headers that do not fit one frame of the
 *       connection's negotiated {@code frame_max}, a router that throws or names no route): a
 *       permanent failure, sent nowhere.
 * </ul>
 *
 * <p>The events of one aggregate (same aggregate type and id) go out on the batch's one channel in
 * the batch's order, so they reach each queue in sequence order. Once one of them fails, none of
 * the later ones of that aggregate in the batch is reported published: one not sent yet is held
 * back, and one the broker took before the failure was known is reported retryable all the same,
 * each with a reason saying that an earlier event of its aggregate failed; one that failed on its
 * own keeps its own outcome. Other aggregates are not affected.
 *
 * <p>The publisher owns one connection, opened by the first batch and opened again by the first
 * batch after it was lost; the client's automatic recovery is disabled on it. Nothing connects
 * before the first batch, so an application starts while the broker is down.
 *
 * <pre>{@code
 * RabbitPublisher publisher = RabbitPublisher.builder()
 *     .uri("amqp://app:secret@rabbit:5672/%2F")
 *     .exchange("outbox")
 *     .declareExchange(BuiltinExchangeType.TOPIC, true)
 *     .build();
 * }</pre>
 */
public final class RabbitPublisher implements Publisher {

  /** The default of {@link Builder#sendTimeout(Duration)}: 30 seconds. */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

  /** The default of {@link Builder#connectionName(String)}: {@code txoutbox-publisher}. */
  public static final String DEFAULT_CONNECTION_NAME = "txoutbox-publisher";

  /**
   * The default of {@link Builder#maxMessageBytes(int)}: 128 MiB, RabbitMQ's default {@code
   * max_message_size}.
   */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

  private static final Logger log = LoggerFactory.getLogger(RabbitPublisher.class);

  private final RabbitPublisherConfig config;
  private final RabbitBatchSender sender;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RabbitPublisher(RabbitPublisherConfig config) {
    this.config = config;
    this.sender = new RabbitBatchSender(config);
  }

  /** A builder with every option at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Sends {@code messages} to RabbitMQ and waits for the broker's confirms; see the class
   * description for the outcome of each message.
   *
   * @throws IllegalStateException if the publisher is closed
   * @throws InterruptedException if interrupted while waiting for confirms; the batch's outcome is
   *     then unknown and its channel is closed
   */
  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
    Objects.requireNonNull(messages, "messages");
    if (closed.get()) {
      throw new IllegalStateException("RabbitMQ publisher is closed");
    }
    return sender.send(messages);
  }

  /**
   * Opens a connection of its own with the publisher's settings, within {@code timeout}, and closes
   * it: {@code REACHABLE} if RabbitMQ accepted it, {@code UNREACHABLE} if it refused the
   * credentials ({@code ACCESS_REFUSED}: the reason says the authentication failed), the virtual
   * host, or did not answer in time. The publisher's own connection is not touched; nothing is
   * declared or sent. The reason names the broker without its password.
   *
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  @Override
  public BrokerCheck checkBroker(Duration timeout) {
    return RabbitBrokerCheck.run(config, BrokerCheck.requirePositive(timeout));
  }

  /** {@code rabbitmq}. */
  @Override
  public String name() {
    return "rabbitmq";
  }

  /** {@code rabbitmq}, the OpenTelemetry messaging conventions' name of the system. */
  @Override
  public String messagingSystem() {
    return "rabbitmq";
  }

  /**
   * The exchange the router picks for {@code message} ({@code ""} for the default exchange, as the
   * OpenTelemetry conventions for RabbitMQ say), or {@code null} if it picks none or fails (which
   * {@link #publish} reports a permanent failure). Asks the router only, never the broker.
   */
  @Override
  public String destinationName(OutboxMessage message) {
    RabbitRouter.Route route = sender.routeOf(Objects.requireNonNull(message, "message"));
    return route == null ? null : route.exchange();
  }

  /**
   * {@code messaging.rabbitmq.destination.routing_key}: the routing key the router picks, when it
   * is not empty (the conventions leave an empty one out); empty if the router picks no route.
   */
  @Override
  public Map<String, String> messagingAttributes(OutboxMessage message) {
    RabbitRouter.Route route = sender.routeOf(Objects.requireNonNull(message, "message"));
    return route == null || route.routingKey().isEmpty()
        ? Map.of()
        : Map.of("messaging.rabbitmq.destination.routing_key", route.routingKey());
  }

  /** Closes the channels and the connection. Idempotent; later publishes throw. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      sender.close();
      log.info("RabbitMQ publisher '{}' closed", config.connectionName());
    }
  }

  /**
   * The effective configuration, for the relay's start line: where it connects (without the
   * password), the connection name, the routing, the exchange declared, and the options, such as
   * {@code rabbitmq{endpoint=amqp://app@rabbit:5672/shop, connectionName=txoutbox-publisher,
   * exchange='outbox', routingKey=eventType, declare=none, sendTimeout=30s,
   * unroutableIsPermanent=false, maxMessageBytes=134217728}}.
   */
  @Override
  public String describe() {
    return name() + "{" + config + "}";
  }

  /** The same as {@link #describe()}. */
  @Override
  public String toString() {
    return describe();
  }

  /**
   * Configures a {@link RabbitPublisher}. Not thread-safe; {@link #build()} copies the options, so
   * changing the builder afterwards never changes a built publisher.
   */
  public static final class Builder {

    private ConnectionFactory connectionFactory;
    private String uri;
    private String exchange;
    private RabbitRouter router;
    private BuiltinExchangeType declareType;
    private boolean declareDurable;
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private boolean unroutableIsPermanent;
    private String connectionName = DEFAULT_CONNECTION_NAME;
    private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;

    private Builder() {}

    /**
     * The broker and client settings (host, credentials, TLS, heartbeat, timeouts). The publisher
     * uses a copy, with automatic recovery disabled since it reconnects by itself. Set this or
     * {@link #uri(String)}.
     *
     * @throws NullPointerException if {@code connectionFactory} is null
     */
    public Builder connectionFactory(ConnectionFactory connectionFactory) {
      this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
      return this;
    }

    /**
     * The broker as an AMQP URI, such as {@code amqp://user:password@host:5672/vhost} (the vhost
     * {@code /} is written {@code %2F}). Set this or {@link #connectionFactory(ConnectionFactory)};
     * for TLS with certificate checks, configure a {@code ConnectionFactory}. The password is never
     * logged.
     *
     * @throws NullPointerException if {@code uri} is null
     */
    public Builder uri(String uri) {
      this.uri = Objects.requireNonNull(uri, "uri");
      return this;
    }

    /**
     * The exchange every event goes to, with its event type as routing key ({@link
     * RabbitRouter#byEventType(String)}); {@code ""} is the default exchange. Required unless
     * {@link #router(RabbitRouter)} is set; with a router, this names only the exchange to declare.
     *
     * @throws NullPointerException if {@code exchange} is null
     */
    public Builder exchange(String exchange) {
      this.exchange = Objects.requireNonNull(exchange, "exchange");
      return this;
    }

    /**
     * Chooses exchange and routing key per event, instead of {@link #exchange(String)}'s default
     * routing. Must be thread-safe.
     *
     * @throws NullPointerException if {@code router} is null
     */
    public Builder router(RabbitRouter router) {
      this.router = Objects.requireNonNull(router, "router");
      return this;
    }

    /**
     * Declares {@link #exchange(String)} each time the publisher connects (an idempotent {@code
     * exchange.declare}; a declaration that conflicts with the existing exchange fails the
     * connection, and so every batch, until fixed). Defaults to declaring nothing.
     *
     * @param type the exchange type, such as {@link BuiltinExchangeType#TOPIC}
     * @param durable whether the exchange survives a broker restart
     * @throws NullPointerException if {@code type} is null
     */
    public Builder declareExchange(BuiltinExchangeType type, boolean durable) {
      this.declareType = Objects.requireNonNull(type, "type");
      this.declareDurable = durable;
      return this;
    }

    /**
     * How long one batch may take, from the first send to the last confirm: messages unconfirmed by
     * then are retryable failures, or the broker unavailable if it answered no message of the batch
     * (the connection is then dropped, and the next batch opens a new one). It also caps the
     * connection factory's connection, handshake and channel RPC timeouts, so a batch that has to
     * connect first, or whose broker stops answering, waits at most about this long more. Keep it
     * well below the relay's transaction limits: the relay holds its transaction open meanwhile.
     * Defaults to 30 seconds ({@link #DEFAULT_SEND_TIMEOUT}); the Kafka and SQS publishers have an
     * option of the same name and meaning.
     *
     * @throws NullPointerException if {@code sendTimeout} is null
     */
    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = Objects.requireNonNull(sendTimeout, "sendTimeout");
      return this;
    }

    /**
     * Whether an unroutable event (returned by the broker, or routed to an exchange that does not
     * exist) is a permanent failure, a dead letter at once. Defaults to {@code false}: retried with
     * backoff, so events reach a queue bound or an exchange declared late.
     */
    public Builder unroutableIsPermanent(boolean unroutableIsPermanent) {
      this.unroutableIsPermanent = unroutableIsPermanent;
      return this;
    }

    /**
     * The connection name the broker shows (management UI, {@code rabbitmqctl list_connections}).
     * Defaults to {@code txoutbox-publisher}.
     *
     * @throws NullPointerException if {@code connectionName} is null
     */
    public Builder connectionName(String connectionName) {
      this.connectionName = Objects.requireNonNull(connectionName, "connectionName");
      return this;
    }

    /**
     * The largest payload sent, in bytes; a larger event fails permanently without being sent. Set
     * it to the broker's {@code max_message_size}. Defaults to 128 MiB, RabbitMQ's default.
     */
    public Builder maxMessageBytes(int maxMessageBytes) {
      this.maxMessageBytes = maxMessageBytes;
      return this;
    }

    /**
     * Validates the options and creates the publisher. Does not connect: the first batch does.
     *
     * @throws IllegalStateException if neither or both of {@code connectionFactory} and {@code uri}
     *     are set, if neither {@code exchange} nor {@code router} is set, or if {@code
     *     declareExchange} is set without {@code exchange}
     * @throws IllegalArgumentException if {@code uri} is not a valid AMQP URI, {@code sendTimeout}
     *     is not positive, {@code maxMessageBytes} is not positive, or {@code exchange} is longer
     *     than 255 UTF-8 bytes
     */
    public RabbitPublisher build() {
      if (connectionFactory == null && uri == null) {
        throw new IllegalStateException("connectionFactory or uri must be set but neither was");
      }
      if (connectionFactory != null && uri != null) {
        throw new IllegalStateException(
            "connectionFactory or uri must be set, not both, but both were");
      }
      if (exchange == null && router == null) {
        throw new IllegalStateException("exchange or router must be set but neither was");
      }
      if (declareType != null && exchange == null) {
        throw new IllegalStateException(
            "exchange must be set when declareExchange is (it names the exchange) but was not");
      }
      if (exchange != null && RabbitMessageMapper.exceedsShortString(exchange)) {
        throw new IllegalArgumentException(
            "exchange must be at most 255 UTF-8 bytes but was "
                + RabbitMessageMapper.utf8Length(exchange));
      }
      if (sendTimeout.isNegative() || sendTimeout.isZero()) {
        throw new IllegalArgumentException(
            "sendTimeout must be positive but was " + DurationText.of(sendTimeout));
      }
      if (maxMessageBytes <= 0) {
        throw new IllegalArgumentException(
            "maxMessageBytes must be positive but was " + maxMessageBytes);
      }
      ConnectionFactory factory = connectionFactory();
      return new RabbitPublisher(
          new RabbitPublisherConfig(
              factory,
              AmqpUris.describe(factory),
              connectionName,
              router != null ? router : RabbitRouter.byEventType(exchange),
              router != null
                  ? "router=custom"
                  : "exchange='" + exchange + "', routingKey=eventType",
              declareType == null
                  ? null
                  : new ExchangeDeclaration(exchange, declareType, declareDurable),
              sendTimeout,
              unroutableIsPermanent,
              maxMessageBytes));
    }

    /**
     * The publisher's own copy: no automatic recovery; connecting, the handshake and every channel
     * RPC (opening a channel, a declaration, closing a channel) bounded by sendTimeout, so that a
     * broker that stops answering cannot hold a batch much longer.
     */
    private ConnectionFactory connectionFactory() {
      ConnectionFactory factory =
          connectionFactory != null ? connectionFactory.clone() : AmqpUris.parse(uri);
      factory.setAutomaticRecoveryEnabled(false);
      factory.setTopologyRecoveryEnabled(false);
      int bound = (int) Math.min(Integer.MAX_VALUE, sendTimeout.toMillis());
      factory.setConnectionTimeout(capped(factory.getConnectionTimeout(), bound));
      factory.setHandshakeTimeout(capped(factory.getHandshakeTimeout(), bound));
      factory.setChannelRpcTimeout(capped(factory.getChannelRpcTimeout(), bound));
      return factory;
    }

    /**
     * {@code timeout} in milliseconds, no longer than {@code bound}; 0 (no limit) is {@code bound}.
     */
    private static int capped(int timeout, int bound) {
      return timeout == 0 || timeout > bound ? bound : timeout;
    }
  }
}
