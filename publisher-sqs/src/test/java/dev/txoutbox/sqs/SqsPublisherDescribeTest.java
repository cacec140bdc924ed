package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * What the relay's start line shows of an SQS publisher: its whole configuration, never a secret.
 */
class SqsPublisherDescribeTest {

  private static final String ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE";
  private static final String SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  private static final String SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLETOKEN";

  @Test
  void describesRoutesOptionsAndTheClientsRegionAndEndpoint() {
    try (SqsAsyncClient client = client("http://127.0.0.1:1");
        SqsPublisher publisher =
            SqsPublisher.builder()
                .client(client)
                .route("order", "orders.fifo")
                .route("invoice", "https://sqs.eu-west-1.amazonaws.com/123456789012/invoices")
                .sendTimeout(Duration.ofMillis(2500))
                .maxMessageBytes(4096)
                .build()) {

      assertThat(publisher.describe())
          .isEqualTo(
              "sqs{routes={order=orders.fifo,"
                  + " invoice=https://sqs.eu-west-1.amazonaws.com/123456789012/invoices},"
                  + " sendTimeout=2.5s, maxMessageBytes=4096, maxBatchBytes=1048576,"
                  + " closeClient=false, region=eu-west-1, endpoint=http://127.0.0.1:1}")
          .isEqualTo(publisher.toString());
    }
  }

  @Test
  void describesACustomRouterByItsToString() {
    SqsRouter router =
        new SqsRouter() {
          @Override
          public Optional<String> route(dev.txoutbox.spi.OutboxMessage message) {
            return Optional.of("events");
          }

          @Override
          public String toString() {
            return "everything to events";
          }
        };

    SqsPublisher publisher = SqsPublisher.builder().client(new FakeSqs()).router(router).build();

    assertThat(publisher.describe())
        .startsWith("sqs{router=everything to events, sendTimeout=10s,")
        .doesNotContain("region");
  }

  @Test
  void neverShowsTheClientsCredentialsOrSecretsInUrls() {
    try (SqsAsyncClient client = client("http://proxyuser:proxy-secret@127.0.0.1:1");
        SqsPublisher publisher =
            SqsPublisher.builder()
                .client(client)
                .route("order", "https://sqs.test/1/orders?X-Amz-Security-Token=tok-secret")
                .build()) {

      for (String shown : new String[] {publisher.describe(), publisher.toString()}) {
        assertThat(shown)
            .startsWith("sqs{")
            .doesNotContain(ACCESS_KEY_ID)
            .doesNotContain(SECRET_ACCESS_KEY)
            .doesNotContain(SESSION_TOKEN)
            .doesNotContain("proxy-secret")
            .doesNotContain("tok-secret")
            .contains("endpoint=http://proxyuser:****@127.0.0.1:1");
      }
    }
  }

  private static SqsAsyncClient client(String endpoint) {
    return SqsAsyncClient.builder()
        .region(Region.EU_WEST_1)
        .endpointOverride(URI.create(endpoint))
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsSessionCredentials.create(ACCESS_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN)))
        .build();
  }
}
