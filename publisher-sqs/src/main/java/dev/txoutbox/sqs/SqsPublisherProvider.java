package dev.txoutbox.sqs;

import dev.txoutbox.spi.DurationText;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import dev.txoutbox.spi.SecretMasking;
import java.net.URI;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;

/**
 * {@code sqs}: the {@link SqsPublisher} as the standalone relay and the benchmarks find it, with an
 * {@link SqsAsyncClient} of its own that it closes. The client takes its credentials from the AWS
 * SDK's default chain (environment, system properties, profile, container or instance role), and
 * its region from {@code --sqs-region} or that chain. Stateless.
 */
public final class SqsPublisherProvider implements PublisherProvider {

  private static final List<PublisherSetting> SETTINGS =
      List.of(
          PublisherSetting.text(
              "sqs-region",
              "REGION",
              "AWS region, such as eu-west-1. Default: the SDK's (AWS_REGION...)."),
          PublisherSetting.text(
              "sqs-endpoint",
              "URL",
              "Another SQS endpoint, such as an ElasticMQ at http://127.0.0.1:9324."),
          PublisherSetting.map(
              "queue",
              "TYPE=QUEUE",
              "Queue URL or name of an aggregate type (repeatable; at least one)."),
          PublisherSetting.duration(
              "send-timeout",
              DurationText.of(SqsPublisher.DEFAULT_SEND_TIMEOUT),
              "How long one batch may take, from the first send to the last answer."));

  /** The flag of each builder option its errors may name. */
  private static final Map<String, String> FLAGS =
      Map.of("sendTimeout", "--send-timeout", "queue", "--queue", "routes", "--queue");

  /** For {@link java.util.ServiceLoader}. */
  public SqsPublisherProvider() {}

  @Override
  public String name() {
    return "sqs";
  }

  @Override
  public List<PublisherSetting> settings() {
    return SETTINGS;
  }

  /**
   * @throws IllegalArgumentException naming the setting as its flag when no queue is given or a
   *     setting is invalid
   * @throws IllegalStateException if the SDK cannot set up its client (no region, say)
   */
  @Override
  public Publisher create(PublisherSettings settings) {
    Map<String, String> queues = settings.map("queue");
    if (queues.isEmpty()) {
      throw new IllegalArgumentException(
          "--queue AGGREGATE_TYPE=QUEUE_URL_OR_NAME must be given at least once for publisher"
              + " sqs but was not");
    }
    SqsPublisher.Builder publisher = SqsPublisher.builder().closeClient(true);
    try {
      publisher.routes(queues);
      settings.duration("send-timeout").ifPresent(publisher::sendTimeout);
    } catch (IllegalArgumentException e) {
      throw PublisherSettings.inFlags(e, FLAGS);
    }
    SqsAsyncClient client = client(settings);
    try {
      return publisher.client(client).build();
    } catch (IllegalArgumentException e) {
      client.close();
      throw PublisherSettings.inFlags(e, FLAGS);
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  private static SqsAsyncClient client(PublisherSettings settings) {
    SqsAsyncClientBuilder client = SqsAsyncClient.builder();
    settings.text("sqs-region").ifPresent(r -> client.region(Region.of(r)));
    settings.text("sqs-endpoint").ifPresent(e -> client.endpointOverride(endpoint(e)));
    try {
      return client.build();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot set up the SQS client: "
              + SecretMasking.maskText(e.getMessage())
              + " (give --sqs-region or set AWS_REGION)",
          e);
    }
  }

  private static URI endpoint(String e) {
    URI uri;
    try {
      uri = URI.create(e);
    } catch (IllegalArgumentException notAUri) {
      uri = null;
    }
    if (uri == null || uri.getScheme() == null || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "--sqs-endpoint must be a URL such as http://127.0.0.1:9324 but was '"
              + SecretMasking.maskUri(e)
              + "'");
    }
    return uri;
  }
}
