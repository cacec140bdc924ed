package dev.txoutbox.kafka;

import dev.txoutbox.spi.BrokerCheck;
import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Publisher} that sends outbox events to Apache Kafka.
 *
 * <p>Each event becomes one record: the key is the aggregate id (so all events of one aggregate go
 * to one partition, in order), the value is the JSON payload as UTF-8 bytes, and the headers are
 * the {@link dev.txoutbox.spi.OutboxHeaders} identity headers plus the event's stored headers. The
 * topic comes from a {@link KafkaRouter}; by default it is the aggregate type.
 *
 * <p>A batch is sent at once: every record is handed to the producer without waiting, then the
 * producer's own outcome of each record is awaited (Kafka reports every record within {@code
 * delivery.timeout.ms}; see {@link Builder#sendTimeout(Duration)}). Each message gets its own
 * outcome: {@code PUBLISHED} only when the broker acknowledged it with {@code acks=all}; broker
 * unavailable when the cluster cannot be reached or refuses every write (which costs the event no
 * attempt); a permanent failure for a record that can never be accepted (too large, invalid or
 * unroutable topic, not authorized for the topic); a retryable failure for the rest. A producer
 * that failed fatally (fenced, authentication failed) is replaced before the next batch.
 *
 * <p>The events of one aggregate in a batch are delivered in the batch's order (ascending
 * sequence), under one key and so to one partition. Once one of them fails, the later ones of that
 * aggregate in the batch are not sent if they have not been handed to the producer yet, and are
 * never reported as published: they are answered as retryable failures, "not sent" or "sent, but an
 * earlier event of its aggregate failed" (a record already handed over cannot be recalled, so it
 * may reach the topic before the event that failed, and again when the relay retries it). Events of
 * other aggregates are not affected. This needs every event of an aggregate routed to one topic
 * (see {@link KafkaRouter}) and a partitioner that maps one key to one partition, as Kafka's
 * default does (not {@code partitioner.class=RoundRobinPartitioner}, not {@code
 * partitioner.ignore.keys=true}).
 *
 * <pre>{@code
 * KafkaPublisher publisher = KafkaPublisher.builder()
 *     .bootstrapServers("kafka-1:9092,kafka-2:9092")
 *     .topicPrefix("shop.")
 *     .build();
 * }</pre>
 *
 * <p>This class is thread-safe.
 */
public final class KafkaPublisher implements Publisher {

  /** The default {@link Builder#sendTimeout(Duration)}: 30 seconds. */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(30);

  private static final Logger log = LoggerFactory.getLogger(KafkaPublisher.class);

  private final ProducerHolder producers;
  private final KafkaBatchSender sender;
  private final Duration sendTimeout;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final String description;
  private final Map<String, Object> producerConfig;

  private KafkaPublisher(Builder builder, Map<String, Object> producerConfig, KafkaRouter router) {
    this.sendTimeout = builder.sendTimeout;
    this.producerConfig = producerConfig;
    SendLimits limits = SendLimits.of(producerConfig);
    this.sender = new KafkaBatchSender(router, limits);
    this.producers = new ProducerHolder(builder.producerFactory, producerConfig);
    this.description =
        "kafka{routing "
            + builder.routeDescription()
            + ", sendTimeout "
            + DurationText.of(sendTimeout)
            + ", waits "
            + limits
            + ", a batch at most "
            + DurationText.of(limits.batchBound())
            + ", producer "
            + ProducerSettings.masked(producerConfig)
            + "}";
  }

  /** A builder with the defaults; {@link Builder#bootstrapServers(String)} is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Sends the batch and waits for the producer's outcome of every record handed to it: Kafka
   * reports each within {@code delivery.timeout.ms} after {@code send()} returned, and the
   * publisher waits that long plus a margin (a tenth of it, at least one second) before it calls
   * the producer stuck. Handing the batch over may block up to {@code max.block.ms} per send that
   * waits for metadata or buffer space, twice at most. So a call takes at most {@code 2 x
   * max.block.ms + delivery.timeout.ms} plus the margin; with the defaults and a reachable cluster
   * it returns as soon as the acknowledgements are in.
   *
   * @throws InterruptedException if interrupted while sending or waiting; messages already handed
   *     to the producer may still be delivered (and will be again when the relay retries them)
   * @throws IllegalStateException if the publisher is closed
   */
  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
    Objects.requireNonNull(messages, "messages");
    long start = System.nanoTime();
    Producer<String, byte[]> producer = producers.current();
    KafkaBatchSender.Outcome outcome = sender.send(producer, messages);
    if (outcome.producerBroken()) {
      producers.discard(producer);
    }
    if (log.isDebugEnabled()) {
      Map<PublishResult.Status, Long> counts =
          outcome.results().stream()
              .collect(
                  Collectors.groupingBy(
                      PublishResult::status,
                      () -> new EnumMap<>(PublishResult.Status.class),
                      Collectors.counting()));
      log.debug(
          "Kafka batch of {} in {} ms: {}",
          messages.size(),
          (System.nanoTime() - start) / 1_000_000,
          counts);
    }
    if (outcome.results().stream().anyMatch(PublishResult::isPublished)) {
      producers.served();
    }
    return outcome.results();
  }

  /**
   * The publisher's whole configuration as the relay's start line shows it: the routing, the send
   * timeout, the waits derived from it and the longest a batch can take, and every effective
   * producer setting, sorted, with secrets masked by {@link dev.txoutbox.spi.SecretMasking} (every
   * Kafka password-type setting such as {@code sasl.jaas.config} or {@code
   * ssl.truststore.password}, and anything named like a secret). The publisher logs no line of its
   * own when built.
   */
  @Override
  public String describe() {
    return description;
  }

  /**
   * Describes the cluster with an admin client of its own, built from the producer's connection and
   * security settings ({@code bootstrap.servers}, {@code security.protocol}, {@code sasl.*}, {@code
   * ssl.*}), within {@code timeout}, then closes it: {@code REACHABLE} with the cluster id and the
   * number of brokers, or {@code UNREACHABLE} when no broker answered in time or the credentials
   * were refused (the reason then says the authentication failed). The producer is not touched.
   *
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   * @throws InterruptedException if interrupted while waiting for the cluster
   */
  @Override
  public BrokerCheck checkBroker(Duration timeout) throws InterruptedException {
    return KafkaBrokerCheck.run(producerConfig, BrokerCheck.requirePositive(timeout));
  }

  /** Returns {@code kafka}. */
  @Override
  public String name() {
    return "kafka";
  }

  /** Returns {@code kafka}, the OpenTelemetry messaging conventions' name of the system. */
  @Override
  public String messagingSystem() {
    return "kafka";
  }

  /**
   * The topic the router picks for {@code message}, or {@code null} if it picks none, fails, or
   * picks a name Kafka does not allow (each of which {@link #publish} reports a permanent failure).
   * Asks the router only, never the cluster.
   */
  @Override
  public String destinationName(OutboxMessage message) {
    return sender.topicOf(Objects.requireNonNull(message, "message"));
  }

  /** {@code messaging.kafka.message.key}: the record's key, which is always the aggregate id. */
  @Override
  public Map<String, String> messagingAttributes(OutboxMessage message) {
    return Map.of("messaging.kafka.message.key", message.aggregateId());
  }

  /**
   * Closes the producer, waiting at most the send timeout for records in flight. Idempotent; a
   * closed publisher refuses to publish. Logged at DEBUG: the relay's own close line is the
   * lifecycle line at INFO.
   */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      producers.close(sendTimeout);
      log.debug("Kafka publisher closed");
    }
  }

  /**
   * Settings for a {@link KafkaPublisher}. {@link #build()} validates and copies them, so a builder
   * can be reused and never changes a publisher already built. Not thread-safe.
   */
  public static final class Builder {
    private String bootstrapServers;
    private final Map<String, Object> producerConfig = new LinkedHashMap<>();
    private KafkaRouter router;
    private String topicPrefix;
    private Map<String, String> topics;
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private ProducerFactory producerFactory = ProducerFactory.kafkaProducer();

    private Builder() {}

    /**
     * The brokers to bootstrap from, {@code host:port[,host:port...]}: Kafka's {@code
     * bootstrap.servers}. Required, unless {@link #producerConfig(Map)} carries it.
     *
     * @throws NullPointerException if {@code bootstrapServers} is null
     * @throws IllegalArgumentException if it is blank
     */
    public Builder bootstrapServers(String bootstrapServers) {
      Objects.requireNonNull(bootstrapServers, "bootstrapServers");
      if (bootstrapServers.isBlank()) {
        throw new IllegalArgumentException(
            "bootstrapServers must not be blank but was '" + bootstrapServers + "'");
      }
      this.bootstrapServers = bootstrapServers;
      return this;
    }

    /**
     * Kafka producer settings ({@code ProducerConfig} names such as {@code compression.type},
     * {@code linger.ms}, {@code security.protocol}, {@code sasl.jaas.config}), added to those set
     * before. They override the publisher's defaults ({@code enable.idempotence=true}, {@code
     * acks=all}, {@code max.in.flight.requests.per.connection=1}, which keeps each partition in
     * order when a record fails for good, {@code linger.ms=0} and {@code batch.size=65536}, because
     * the publisher awaits every acknowledgement of a batch, and {@code max.block.ms}, {@code
     * delivery.timeout.ms} and {@code request.timeout.ms} derived from the send timeout). Not
     * allowed: {@code transactional.id}, {@code key.serializer}, {@code value.serializer}. Defaults
     * to none.
     *
     * @throws NullPointerException if the map, or a name or value in it, is null
     */
    public Builder producerConfig(Map<String, ?> settings) {
      Objects.requireNonNull(settings, "producerConfig");
      settings.forEach(this::producerProperty);
      return this;
    }

    /**
     * One Kafka producer setting; see {@link #producerConfig(Map)}.
     *
     * @throws NullPointerException if {@code name} or {@code value} is null
     */
    public Builder producerProperty(String name, Object value) {
      producerConfig.put(
          Objects.requireNonNull(name, "producerConfig name"),
          Objects.requireNonNull(value, () -> "producerConfig value of " + name));
      return this;
    }

    /**
     * Routes each message to a topic with a function of your own. Exclusive with {@link
     * #topicPrefix(String)} and {@link #topics(Map)}. Defaults to the aggregate type as the topic.
     *
     * @throws NullPointerException if {@code router} is null
     */
    public Builder router(KafkaRouter router) {
      this.router = Objects.requireNonNull(router, "router");
      return this;
    }

    /**
     * Routes each message to {@code prefix + aggregateType}, such as {@code shop.order}. Exclusive
     * with {@link #router(KafkaRouter)} and {@link #topics(Map)}. Defaults to no prefix.
     *
     * @throws NullPointerException if {@code prefix} is null
     */
    public Builder topicPrefix(String prefix) {
      this.topicPrefix = Objects.requireNonNull(prefix, "topicPrefix");
      return this;
    }

    /**
     * Routes by an explicit map from aggregate type to topic; a message whose aggregate type is not
     * in the map is a permanent failure (a dead letter). Exclusive with {@link
     * #router(KafkaRouter)} and {@link #topicPrefix(String)}.
     *
     * @throws NullPointerException if the map, or a key or value in it, is null
     */
    public Builder topics(Map<String, String> topicsByAggregateType) {
      this.topics = Map.copyOf(Objects.requireNonNull(topicsByAggregateType, "topics"));
      return this;
    }

    /**
     * How long one batch may take, from the first send to the last answer. Kafka keeps this budget
     * itself, so that no deadline of the publisher races the producer: unless set in {@link
     * #producerConfig(Map)}, the producer's {@code delivery.timeout.ms} (within which Kafka answers
     * every record handed to it, acknowledged or failed) and {@code max.block.ms} (the longest one
     * {@code send()} waits for metadata or buffer space) are this value, and {@code
     * request.timeout.ms} is made to fit. A batch therefore ends within about this time, during an
     * outage too; only a batch whose sends wait for the metadata of a missing topic can take
     * longer, at most {@code 2 x max.block.ms + delivery.timeout.ms} plus a margin (see {@link
     * KafkaPublisher#publish(List)}; {@link KafkaPublisher#describe()} shows that bound). Also
     * bounds {@link KafkaPublisher#close()}. Defaults to 30 seconds ({@link
     * KafkaPublisher#DEFAULT_SEND_TIMEOUT}).
     *
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if it is not positive or longer than {@code
     *     Integer.MAX_VALUE} milliseconds
     */
    public Builder sendTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "sendTimeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException(
            "sendTimeout must be positive but was " + DurationText.of(timeout));
      }
      if (timeout.toMillis() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "sendTimeout must be at most "
                + Integer.MAX_VALUE
                + " ms but was "
                + DurationText.of(timeout));
      }
      this.sendTimeout = timeout;
      return this;
    }

    /**
     * Creates the producer (and its replacements). Defaults to {@link
     * ProducerFactory#kafkaProducer()}.
     *
     * @throws NullPointerException if {@code factory} is null
     */
    public Builder producerFactory(ProducerFactory factory) {
      this.producerFactory = Objects.requireNonNull(factory, "producerFactory");
      return this;
    }

    /**
     * Validates the settings and creates the publisher with its first producer (which connects
     * lazily, on the first batch).
     *
     * @throws IllegalStateException if no bootstrap servers are set
     * @throws IllegalArgumentException if a setting is invalid or settings contradict each other;
     *     the message names the setting
     */
    public KafkaPublisher build() {
      KafkaRouter chosen = effectiveRouter();
      Map<String, Object> effective =
          ProducerSettings.effective(producerConfig, bootstrapServers, sendTimeout);
      KafkaPublisher publisher;
      try {
        publisher = new KafkaPublisher(this, effective, chosen);
      } catch (KafkaException e) {
        throw new IllegalArgumentException("producerConfig: " + e.getMessage(), e);
      }
      return publisher;
    }

    private KafkaRouter effectiveRouter() {
      int set = (router != null ? 1 : 0) + (topicPrefix != null ? 1 : 0) + (topics != null ? 1 : 0);
      if (set > 1) {
        throw new IllegalArgumentException(
            "router, topicPrefix and topics are exclusive; set one of them");
      }
      if (router != null) {
        return router;
      }
      if (topics != null) {
        topics.forEach(
            (aggregateType, topic) -> {
              String problem = TopicNames.problem(topic);
              if (problem != null) {
                throw new IllegalArgumentException(
                    "topics: aggregate type '" + aggregateType + "': " + problem);
              }
            });
        return KafkaRouter.fromMap(topics);
      }
      if (topicPrefix != null && !TopicNames.legalCharacters(topicPrefix)) {
        throw new IllegalArgumentException(
            "topicPrefix '"
                + topicPrefix
                + "' may contain only ASCII letters, digits, '.', '_' and '-'");
      }
      return topicPrefix == null
          ? KafkaRouter.byAggregateType()
          : KafkaRouter.withPrefix(topicPrefix);
    }

    private String routeDescription() {
      if (router != null) {
        return "by router " + router.getClass().getName();
      }
      if (topics != null) {
        return "by topics " + topics;
      }
      return "to topic '" + (topicPrefix == null ? "" : topicPrefix) + "<aggregate type>'";
    }
  }
}
