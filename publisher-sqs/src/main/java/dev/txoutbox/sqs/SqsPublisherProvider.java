package dev.txoutbox.sqs;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSetting;
import dev.txoutbox.spi.PublisherSettings;
import java.net.URI;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.SqsAsyncClientBuilder;

/**
 * {@code sqs}: the {@link SqsPublisher} as the standalone relay and the benchmarks find it, with an
 * {@link SqsAsyncClient} of its own that it closes. Stateless.
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
              "10s",
              "How long one batch may take, from the first send to the last answer."));

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
   * @throws IllegalArgumentException if no queue is given or a setting is invalid
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
    SqsAsyncClientBuilder client = SqsAsyncClient.builder();
    settings.text("sqs-region").ifPresent(r -> client.region(Region.of(r)));
    settings.text("sqs-endpoint").ifPresent(e -> client.endpointOverride(endpoint(e)));
    SqsPublisher.Builder b = SqsPublisher.builder().routes(queues).closeClient(true);
    settings.duration("send-timeout").ifPresent(b::sendTimeout);
    SqsAsyncClient built;
    try {
      built = client.build();
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "cannot set up the SQS client: "
              + e.getMessage()
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
