package dev.txoutbox.sqs;

import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Printable;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.Routing;
import dev.txoutbox.spi.RunOrder;
import dev.txoutbox.spi.SecretMasking;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsServiceClientConfiguration;

/**
 * Publishes outbox messages to Amazon SQS standard and FIFO queues with {@code SendMessageBatch}.
 *
 * <pre>{@code
 * SqsAsyncClient sqs = SqsAsyncClient.builder().region(Region.EU_WEST_1).build();
 * Publisher publisher = SqsPublisher.builder()
 *     .client(sqs)
 *     .route("order", "orders.fifo")
 *     .route("invoice", "https://sqs.eu-west-1.amazonaws.com/123456789012/invoices")
 *     .build();
 * }</pre>
 *
 * <h2>What it does with a batch</h2>
 *
 * <ol>
 *   <li>Routes each message to a queue ({@link SqsRouter}); a message without a queue is a
 *       permanent failure.
 *   <li>Builds its attributes ({@link SqsHeaders}) and checks it: body plus attributes over {@link
 *       Builder#maxMessageBytes}, or a body with characters SQS does not accept, is a permanent
 *       failure found before anything is sent, so it never fails the request of its neighbours.
 *   <li>Cuts each queue's messages into requests of at most 10 entries and {@link
 *       Builder#maxBatchBytes}, and sends them all at once — except that the requests carrying one
 *       aggregate's events go one after the other, in order, each after the previous one was
 *       answered.
 *   <li>Waits for every request until {@link Builder#sendTimeout} after the call began, and reports
 *       each message's own outcome: published when SQS acknowledged that entry; a permanent failure
 *       when SQS rejected the entry as the sender's fault, or the request for a reason no retry
 *       fixes (no such queue, access denied); {@link PublishResult#brokerUnavailable(String,
 *       Throwable) broker unavailable}, which costs the event no attempt, when the request failed
 *       with a network error, throttling or a server error (5xx), or got no answer in time;
 *       otherwise a retryable failure.
 * </ol>
 *
 * <p>On a FIFO queue (a name or URL ending in {@code .fifo}) {@code MessageGroupId} is the
 * aggregate id (or, when SQS would refuse it as a group id, {@code sha256-} and its hex digest) and
 * {@code MessageDeduplicationId} the event id, so SQS drops a re-sent event within its five-minute
 * deduplication window. On a standard queue neither id is set.
 *
 * <p>On both kinds of queue, once an event of an aggregate (same aggregate type and id) fails in
 * any way, the later events of that aggregate in the call are not sent and none of them is reported
 * published: they are answered retryable ("not sent: an earlier event of its aggregate failed"), or
 * broker unavailable when the failure was. One that SQS took in the same request as the failed one
 * is not reported published either. Other aggregates go on unaffected. A standard queue itself does
 * not keep the order in which it was sent.
 *
 * <p>This type is thread-safe.
 */
public final class SqsPublisher implements Publisher {

  /** SQS's largest message and largest batch request: 1 MiB (1,048,576 bytes). */
  public static final int SQS_MAX_BYTES = 1_048_576;

  /** The default of {@link Builder#maxMessageBytes}: {@value}, SQS's limit. */
  public static final int DEFAULT_MAX_MESSAGE_BYTES = SQS_MAX_BYTES;

  /** The default of {@link Builder#maxBatchBytes}: {@value}, SQS's limit. */
  public static final int DEFAULT_MAX_BATCH_BYTES = SQS_MAX_BYTES;

  /** The smallest {@link Builder#maxMessageBytes}: {@value}, SQS's smallest queue limit. */
  public static final int MIN_MESSAGE_BYTES = 1_024;

  /** The default of {@link Builder#sendTimeout}: 10 seconds. */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(10);

  /** How routing failures name the router. */
  private static final String ROUTER_NAME = "SQS queue router";

  private final SqsAsyncClient client;
  private final boolean closeClient;
  private final SqsRouter router;
  private final Duration sendTimeout;
  private final int maxMessageBytes;
  private final int maxBatchBytes;
  private final QueueResolver queues;
  private final SqsBatchSender sender;
  private final String description;
  private final List<String> routedQueues;
  private final AtomicBoolean closed = new AtomicBoolean();

  private SqsPublisher(Builder b, SqsRouter router) {
    this.routedQueues = b.router != null ? List.of() : List.copyOf(Set.copyOf(b.routes.values()));
    this.client = b.client;
    this.closeClient = b.closeClient;
    this.router = router;
    this.sendTimeout = b.sendTimeout;
    this.maxMessageBytes = b.maxMessageBytes;
    this.maxBatchBytes = b.maxBatchBytes;
    this.queues = new QueueResolver(client);
    this.sender = new SqsBatchSender(client);
    this.description = description(b);
  }

  /**
   * The effective configuration, for the relay's start line: routes (or the router), the limits,
   * and the client's region and endpoint where it tells them. Queue URLs and the endpoint are
   * masked as URIs; the client's credentials are never read.
   */
  private static String description(Builder b) {
    StringJoiner d = new StringJoiner(", ", "sqs{", "}");
    if (b.router != null) {
      d.add("router=" + SecretMasking.maskText(String.valueOf(b.router)));
    } else {
      StringJoiner routes = new StringJoiner(", ", "{", "}");
      b.routes.forEach((type, queue) -> routes.add(type + "=" + SecretMasking.maskUri(queue)));
      d.add("routes=" + routes);
    }
    d.add("sendTimeout=" + DurationText.of(b.sendTimeout));
    d.add("maxMessageBytes=" + b.maxMessageBytes);
    d.add("maxBatchBytes=" + b.maxBatchBytes);
    d.add("closeClient=" + b.closeClient);
    try {
      SqsServiceClientConfiguration client = b.client.serviceClientConfiguration();
      if (client.region() != null) {
        d.add("region=" + client.region());
      }
      client
          .endpointOverride()
          .ifPresent(e -> d.add("endpoint=" + SecretMasking.maskUri(e.toString())));
    } catch (UnsupportedOperationException e) {
      // a client implementation that does not tell its configuration: nothing more to show
    }
    return Printable.of(d.toString());
  }

  /** Starts configuring a publisher. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalStateException if the publisher is closed
   */
  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
    Objects.requireNonNull(messages, "messages");
    if (closed.get()) {
      throw new IllegalStateException("SqsPublisher is closed");
    }
    PublishRun run = new PublishRun(messages.size(), sendTimeout);
    RunOrder order = new RunOrder();
    List<Entry> entries = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      OutboxMessage message = messages.get(i);
      PublishResult heldBack = order.heldBack(message);
      PublishResult known = heldBack != null ? heldBack : prepare(i, message, entries);
      if (known != null) { // an outcome before sending: held back, or refused by our checks
        run.complete(i, order.outcome(message, known));
      }
    }
    Map<String, CompletableFuture<String>> urls = new HashMap<>();
    for (Entry e : entries) {
      urls.computeIfAbsent(e.queue(), queue -> queues.resolve(queue, run.remaining()));
    }
    List<CompletableFuture<Void>> lanes = new ArrayList<>();
    for (List<List<Entry>> lane : BatchPlanner.plan(entries, maxBatchBytes)) {
      lanes.add(sender.sendLane(run, urls, lane));
    }
    return RunOrder.enforce(messages, run.await(lanes));
  }

  /**
   * Routes, maps and checks {@code message}, and adds it to {@code entries}.
   *
   * @return {@code null} if it was added, or its outcome: the permanent failure found
   */
  private PublishResult prepare(int index, OutboxMessage message, List<Entry> entries) {
    Routing<String> route = Routing.route(message, ROUTER_NAME, router::route);
    if (!route.routed()) {
      return route.failure();
    }
    String queue = route.destination();
    SqsMessageMapper.Mapped mapped = SqsMessageMapper.map(message);
    if (mapped.size() > maxMessageBytes) {
      return PublishResult.permanent(
          "message is "
              + mapped.size()
              + " bytes (body and attributes), over the SQS limit of "
              + maxMessageBytes);
    }
    int invalid = SqsText.firstInvalidChar(message.payload());
    if (invalid >= 0) {
      return PublishResult.permanent(
          String.format(
              "payload holds U+%04X at index %d, a character SQS does not accept",
              message.payload().codePointAt(invalid), invalid));
    }
    String groupId = QueueResolver.isFifo(queue) ? SqsText.groupId(message.aggregateId()) : null;
    entries.add(new Entry(index, message, queue, mapped.attributes(), mapped.size(), groupId));
    return null;
  }

  /**
   * Asks SQS about every queue the routes name, within {@code timeout}: {@code GetQueueUrl} for a
   * queue name (which publishing needs anyway), {@code GetQueueAttributes} for a queue URL; under a
   * custom router, {@code ListQueues} for one queue. Sends nothing. {@code REACHABLE} lists the
   * queues; {@code UNREACHABLE} says which request failed and why (credentials refused, no such
   * queue, no answer in time).
   *
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws InterruptedException if interrupted while waiting for SQS
   */
  @Override
  public BrokerCheck checkBroker(Duration timeout) throws InterruptedException {
    return SqsBrokerCheck.run(client, queues, routedQueues, BrokerCheck.requirePositive(timeout));
  }

  /** {@code sqs}. */
  @Override
  public String name() {
    return "sqs";
  }

  /** {@code aws_sqs}, the OpenTelemetry messaging conventions' name of the system. */
  @Override
  public String messagingSystem() {
    return "aws_sqs";
  }

  /**
   * The name of the queue the routes (or the router) pick for {@code message}: the route itself, or
   * the last path segment of a queue URL; {@code null} if there is no route or the router fails
   * (which {@link #publish} reports a permanent failure). Asks the router only, never SQS.
   */
  @Override
  public String destinationName(OutboxMessage message) {
    String route = routeOf(message);
    return route == null ? null : QueueResolver.queueName(route);
  }

  /**
   * {@code aws.sqs.queue.url} when the queue's URL is known without asking SQS (the route is a URL,
   * or its name was looked up already), with any password in it masked; empty otherwise.
   */
  @Override
  public Map<String, String> messagingAttributes(OutboxMessage message) {
    String route = routeOf(message);
    String url = route == null ? null : queues.knownUrl(route);
    return url == null ? Map.of() : Map.of("aws.sqs.queue.url", SecretMasking.maskUri(url));
  }

  private String routeOf(OutboxMessage message) {
    Routing<String> route =
        Routing.route(Objects.requireNonNull(message, "message"), ROUTER_NAME, router::route);
    return route.routed() ? route.destination() : null;
  }

  /**
   * Stops accepting batches. Closes the {@link SqsAsyncClient} only if the builder was told to
   * ({@link Builder#closeClient(boolean)}); otherwise the client stays open for its owner.
   * Idempotent.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && closeClient) {
      client.close();
    }
  }

  /**
   * The effective configuration, such as {@code sqs{routes={order=orders.fifo}, sendTimeout=10s,
   * maxMessageBytes=1048576, maxBatchBytes=1048576, closeClient=false, region=eu-west-1}}: the
   * routes (or the router's {@code toString()}), the options, and the client's region and endpoint
   * override where the client tells them. URLs are masked with {@link SecretMasking}; the client's
   * credentials are never part of it.
   */
  @Override
  public String describe() {
    return description;
  }

  /** The same as {@link #describe()}. */
  @Override
  public String toString() {
    return description;
  }

  /**
   * Configures an {@link SqsPublisher}. Set the client and either routes or a router; everything
   * else has a default. {@link #build()} validates and copies, so a builder may be reused. Not
   * thread-safe.
   */
  public static final class Builder {
    private SqsAsyncClient client;
    private boolean closeClient;
    private final Map<String, String> routes = new LinkedHashMap<>();
    private SqsRouter router;
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
    private int maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;

    private Builder() {}

    /**
     * The SQS client, configured by the caller (region, credentials, endpoint, HTTP client,
     * retries). Required. The SDK's own retries happen inside {@link #sendTimeout}.
     *
     * @throws NullPointerException if {@code client} is null
     */
    public Builder client(SqsAsyncClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * Whether {@link SqsPublisher#close()} also closes the client. Defaults to {@code false}: the
     * caller who built the client closes it.
     */
    public Builder closeClient(boolean closeClient) {
      this.closeClient = closeClient;
      return this;
    }

    /**
     * Sends events of {@code aggregateType} to {@code queue}, a queue URL or a queue name (looked
     * up once with {@code GetQueueUrl}). Aggregate types without a route are permanent failures.
     * Exclusive with {@link #router}.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code queue} is blank
     */
    public Builder route(String aggregateType, String queue) {
      Objects.requireNonNull(aggregateType, "aggregateType");
      routes.put(aggregateType, QueueResolver.requireQueue(aggregateType, queue));
      return this;
    }

    /**
     * Adds every entry of {@code routes} as {@link #route(String, String)} does.
     *
     * @throws NullPointerException if {@code routes} or an entry is null
     * @throws IllegalArgumentException if a queue is blank
     */
    public Builder routes(Map<String, String> routes) {
      Objects.requireNonNull(routes, "routes").forEach(this::route);
      return this;
    }

    /**
     * Chooses the queue of each message with {@code router} instead of routes by aggregate type.
     * Exclusive with {@link #route}.
     *
     * @throws NullPointerException if {@code router} is null
     */
    public Builder router(SqsRouter router) {
      this.router = Objects.requireNonNull(router, "router");
      return this;
    }

    /**
     * How long one batch may take, from the first send to the last answer: the longest one {@code
     * publish} call waits for SQS, counted from the call's start, queue lookups and the SDK's own
     * retries included. What SQS has not acknowledged by then is reported as the broker being
     * unavailable, which costs no attempt, and its request is cancelled. Each request's API call
     * timeout is the time left of it. Keep it well below the relay's shutdown timeout: the relay's
     * transaction holds the claimed rows meanwhile. Positive; defaults to 10 seconds.
     *
     * @throws NullPointerException if {@code sendTimeout} is null
     */
    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = Objects.requireNonNull(sendTimeout, "sendTimeout");
      return this;
    }

    /**
     * The largest message, in bytes, counted as SQS does: the UTF-8 body plus each attribute's
     * name, type and value. A larger message is a permanent failure, detected before sending. Set
     * it to the queue's {@code MaximumMessageSize} when that is lower than SQS's limit. From
     * {@value SqsPublisher#MIN_MESSAGE_BYTES} to {@value SqsPublisher#SQS_MAX_BYTES}; defaults to
     * {@value SqsPublisher#DEFAULT_MAX_MESSAGE_BYTES}.
     */
    public Builder maxMessageBytes(int maxMessageBytes) {
      this.maxMessageBytes = maxMessageBytes;
      return this;
    }

    /**
     * The largest {@code SendMessageBatch} request, in bytes: the sum of its messages' sizes as
     * {@link #maxMessageBytes} counts them. From {@link #maxMessageBytes} to {@value
     * SqsPublisher#SQS_MAX_BYTES}; defaults to {@value SqsPublisher#DEFAULT_MAX_BATCH_BYTES}.
     */
    public Builder maxBatchBytes(int maxBatchBytes) {
      this.maxBatchBytes = maxBatchBytes;
      return this;
    }

    /**
     * Validates the settings and builds the publisher.
     *
     * @throws IllegalStateException if no client, or neither or both of routes and router, were set
     * @throws IllegalArgumentException if a setting is out of range; the message names it
     */
    public SqsPublisher build() {
      if (client == null) {
        throw new IllegalStateException(
            "client must be set with client(SqsAsyncClient) but was not");
      }
      if (routes.isEmpty() && router == null) {
        throw new IllegalStateException(
            "routes or a router must be set with route(aggregateType, queue), routes(map) or"
                + " router(router) but neither was");
      }
      if (!routes.isEmpty() && router != null) {
        throw new IllegalStateException(
            "routes and a router are exclusive: one must be set but both were");
      }
      if (sendTimeout.isZero() || sendTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "sendTimeout must be positive but was " + DurationText.of(sendTimeout));
      }
      if (maxMessageBytes < MIN_MESSAGE_BYTES || maxMessageBytes > SQS_MAX_BYTES) {
        throw new IllegalArgumentException(
            "maxMessageBytes must be from "
                + MIN_MESSAGE_BYTES
                + " to "
                + SQS_MAX_BYTES
                + " but was "
                + maxMessageBytes);
      }
      if (maxBatchBytes < maxMessageBytes || maxBatchBytes > SQS_MAX_BYTES) {
        throw new IllegalArgumentException(
            "maxBatchBytes must be from maxMessageBytes ("
                + maxMessageBytes
                + ") to "
                + SQS_MAX_BYTES
                + " but was "
                + maxBatchBytes);
      }
      return new SqsPublisher(this, router != null ? router : SqsRouter.byAggregateType(routes));
    }
  }
}
