package dev.txoutbox.cli;

import com.rabbitmq.client.BuiltinExchangeType;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.rabbit.RabbitPublisher;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.SqsPublisher;
import java.net.URI;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;

/** Builds the {@code relay} command's publisher from its {@link PublisherSettings}. Stateless. */
final class Publishers {

  /** How {@code --declare-exchange} reads an exchange type. */
  private static final EnumFlag<BuiltinExchangeType> EXCHANGE_TYPE =
      EnumFlag.of("--declare-exchange", BuiltinExchangeType.class);

  /** Plain settings and prefixes (ending in '.') of each publisher. */
  private static final Map<Broker, List<String>> SETTINGS =
      Map.of(
          Broker.KAFKA,
          List.of("bootstrap-servers", "topic-prefix", "topic.", "kafka.", "send-timeout"),
          Broker.SQS,
          List.of("sqs-region", "sqs-endpoint", "queue.", "sqs-request-timeout"),
          Broker.RABBIT,
          List.of(
              "amqp-uri",
              "exchange",
              "declare-exchange",
              "confirm-timeout",
              "unroutable-is-permanent"));

  /** Per publisher, the flag that sets each option of its builder, for error messages. */
  private static final Map<Broker, Map<String, String>> FLAGS =
      Map.of(
          Broker.KAFKA,
          Map.of(
              "bootstrapServers", "--bootstrap-servers",
              "topicPrefix", "--topic-prefix",
              "topics", "--topic",
              "producerConfig", "--kafka-property",
              "sendTimeout", "--send-timeout"),
          Broker.SQS,
          Map.of(
              "routes", "--queue",
              "queue", "--queue",
              "sendTimeout", "--sqs-request-timeout"),
          Broker.RABBIT,
          Map.of(
              "uri", "--amqp-uri",
              "exchange", "--exchange",
              "confirmTimeout", "--confirm-timeout"));

  private Publishers() {}

  /** The flag of each builder option of {@code publisher}. */
  static Map<String, String> flags(Broker publisher) {
    return FLAGS.get(publisher);
  }

  static boolean accepts(Broker publisher, String key) {
    for (String s : SETTINGS.get(publisher)) {
      if (s.endsWith(".") ? key.startsWith(s) && key.length() > s.length() : key.equals(s)) {
        return true;
      }
    }
    return false;
  }

  static String settingsOf(Broker publisher) {
    return String.join(
        ", ", SETTINGS.get(publisher).stream().map(s -> s.endsWith(".") ? s + "*" : s).toList());
  }

  /**
   * Builds the publisher; it connects on its first batch.
   *
   * @throws IllegalArgumentException or IllegalStateException (from the publisher's builder) if a
   *     setting is missing or invalid
   */
  static Publisher create(PublisherSettings s, String relayName) {
    return switch (s.publisher()) {
      case KAFKA -> kafka(s);
      case SQS -> sqs(s);
      case RABBIT -> rabbit(s, relayName);
    };
  }

  private static Publisher kafka(PublisherSettings s) {
    KafkaPublisher.Builder b = KafkaPublisher.builder();
    Map<String, String> producer = s.withPrefix("kafka.");
    if (s.get("bootstrap-servers").isPresent() || !producer.containsKey("bootstrap.servers")) {
      b.bootstrapServers(s.require("bootstrap-servers"));
    }
    b.producerConfig(producer);
    s.get("topic-prefix").ifPresent(b::topicPrefix);
    Map<String, String> topics = s.withPrefix("topic.");
    if (!topics.isEmpty()) {
      b.topics(topics);
    }
    s.duration("send-timeout").ifPresent(b::sendTimeout);
    return b.build();
  }

  private static Publisher sqs(PublisherSettings s) {
    Map<String, String> queues = s.withPrefix("queue.");
    if (queues.isEmpty()) {
      throw new IllegalArgumentException(
          "--queue AGGREGATE_TYPE=QUEUE_URL_OR_NAME must be given at least once for --publisher"
              + " sqs but was not");
    }
    SqsAsyncClientBuilder client = SqsAsyncClient.builder();
    s.get("sqs-region").ifPresent(r -> client.region(Region.of(r)));
    s.get("sqs-endpoint").ifPresent(e -> client.endpointOverride(endpoint(e)));
    SqsPublisher.Builder b = SqsPublisher.builder().routes(queues).closeClient(true);
    s.duration("sqs-request-timeout").ifPresent(b::sendTimeout);
    SqsAsyncClient built;
    try {
      built = client.build();
    } catch (RuntimeException e) {
      throw new CliException(
          "cannot set up the SQS client: "
              + OutputMasking.mask(e.getMessage())
              + " (give --sqs-region or set AWS_REGION)",
          e);
    }
    try {
      return b.client(built).build();
    } catch (RuntimeException e) {
      built.close();
      throw e;
    }
  }

  private static Publisher rabbit(PublisherSettings s, String relayName) {
    RabbitPublisher.Builder b =
        RabbitPublisher.builder()
            .uri(s.require("amqp-uri"))
            .exchange(s.require("exchange"))
            .connectionName("txoutbox-relay-" + relayName)
            .unroutableIsPermanent(s.flag("unroutable-is-permanent"));
    s.get("declare-exchange").ifPresent(t -> b.declareExchange(EXCHANGE_TYPE.parse(t), true));
    s.duration("confirm-timeout").ifPresent(b::sendTimeout);
    return b.build();
  }

  private static URI endpoint(String e) {
    try {
      URI uri = URI.create(e);
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new IllegalArgumentException("no scheme or host");
      }
      return uri;
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException(
          "--sqs-endpoint must be a URL such as http://127.0.0.1:9324 but was '" + e + "'");
    }
  }
}
