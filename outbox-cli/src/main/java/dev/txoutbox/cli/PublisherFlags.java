package dev.txoutbox.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The {@code relay} command's publisher flags, one group per broker. Each flag has the same name as
 * its key in {@code --publisher-config} files.
 */
final class PublisherFlags {

  private PublisherFlags() {}

  /** {@code --publisher kafka}. */
  static final class Kafka {
    @Option(
        names = "--bootstrap-servers",
        paramLabel = "HOST:PORT[,...]",
        description = "Kafka brokers to bootstrap from.")
    String bootstrapServers;

    @Option(
        names = "--topic-prefix",
        paramLabel = "PREFIX",
        description = "Topic = PREFIX + aggregate type. Default: the aggregate type.")
    String topicPrefix;

    @Option(
        names = "--topic",
        paramLabel = "TYPE=TOPIC",
        description =
            "Explicit topic of an aggregate type (repeatable); unmapped types dead-letter.")
    Map<String, String> topics;

    @Option(
        names = "--kafka-property",
        paramLabel = "NAME=VALUE",
        description =
            "Any Kafka producer setting (repeatable), such as compression.type=zstd. Put secrets"
                + " (sasl.jaas.config) in --publisher-config as kafka.NAME=VALUE instead.")
    Map<String, String> producer;

    @Option(
        names = "--send-timeout",
        paramLabel = "DURATION",
        description = "How long a batch waits for Kafka's acknowledgements. Default: 30s.")
    String sendTimeout;

    void addTo(Map<String, String> settings) {
      put(settings, "bootstrap-servers", bootstrapServers);
      put(settings, "topic-prefix", topicPrefix);
      putAll(settings, "topic.", topics);
      putAll(settings, "kafka.", producer);
      put(settings, "send-timeout", sendTimeout);
    }
  }

  /** {@code --publisher sqs}. */
  static final class Sqs {
    @Option(
        names = "--sqs-region",
        paramLabel = "REGION",
        description = "AWS region, such as eu-west-1. Default: the SDK's (AWS_REGION...).")
    String region;

    @Option(
        names = "--sqs-endpoint",
        paramLabel = "URL",
        description = "Another SQS endpoint, such as an ElasticMQ at http://127.0.0.1:9324.")
    String endpoint;

    @Option(
        names = "--queue",
        paramLabel = "TYPE=QUEUE",
        description = "Queue URL or name of an aggregate type (repeatable; at least one).")
    Map<String, String> queues;

    @Option(
        names = "--sqs-request-timeout",
        paramLabel = "DURATION",
        description = "How long one batch waits for SQS. Default: 10s.")
    String requestTimeout;

    void addTo(Map<String, String> settings) {
      put(settings, "sqs-region", region);
      put(settings, "sqs-endpoint", endpoint);
      putAll(settings, "queue.", queues);
      put(settings, "sqs-request-timeout", requestTimeout);
    }
  }

  /** {@code --publisher rabbit}. */
  static final class Rabbit {
    @Option(
        names = "--amqp-uri",
        paramLabel = "URI",
        description =
            "amqp://user:password@host:5672/vhost. Put it in --publisher-config to keep the"
                + " password off the command line.")
    String uri;

    @Option(
        names = "--exchange",
        paramLabel = "EXCHANGE",
        description = "The exchange; the routing key is the event type. \"\" is the default.")
    String exchange;

    @Option(
        names = "--declare-exchange",
        paramLabel = "TYPE",
        description = "Declare the exchange (durable) as direct, fanout, topic or headers.")
    String declareExchange;

    @Option(
        names = "--confirm-timeout",
        paramLabel = "DURATION",
        description = "How long a batch waits for the broker's confirms. Default: 30s.")
    String confirmTimeout;

    @Option(
        names = "--unroutable-is-permanent",
        description = "Dead-letter unroutable events at once instead of retrying them.")
    Boolean unroutableIsPermanent;

    void addTo(Map<String, String> settings) {
      put(settings, "amqp-uri", uri);
      put(settings, "exchange", exchange);
      put(settings, "declare-exchange", declareExchange);
      put(settings, "confirm-timeout", confirmTimeout);
      put(settings, "unroutable-is-permanent", unroutableIsPermanent == null ? null : "true");
    }
  }

  /** The flags given, as settings. */
  static Map<String, String> settings(Kafka kafka, Sqs sqs, Rabbit rabbit) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (kafka != null) {
      kafka.addTo(settings);
    }
    if (sqs != null) {
      sqs.addTo(settings);
    }
    if (rabbit != null) {
      rabbit.addTo(settings);
    }
    return settings;
  }

  private static void put(Map<String, String> settings, String key, String value) {
    if (value != null) {
      settings.put(key, value);
    }
  }

  private static void putAll(Map<String, String> settings, String prefix, Map<String, String> map) {
    if (map != null) {
      map.forEach((k, v) -> settings.put(prefix + k, v));
    }
  }
}
