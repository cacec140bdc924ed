package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/** What the relay logs at start about an SQS publisher never holds the AWS credentials. */
class SqsPublisherDescribeTest {

  private static final String ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE";
  private static final String SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  private static final String SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLETOKEN";

  @Test
  void describesItsOptionsWithoutTheClientsCredentials() {
    try (SqsAsyncClient client =
            SqsAsyncClient.builder()
                .region(Region.EU_WEST_1)
                .endpointOverride(URI.create("http://127.0.0.1:1"))
                .credentialsProvider(
                    StaticCredentialsProvider.create(
                        AwsSessionCredentials.create(
                            ACCESS_KEY_ID, SECRET_ACCESS_KEY, SESSION_TOKEN)))
                .build();
        SqsPublisher publisher =
            SqsPublisher.builder().client(client).route("order", "orders").build()) {

      for (String shown : new String[] {publisher.describe(), publisher.toString()}) {
        assertThat(shown)
            .startsWith("SqsPublisher[")
            .doesNotContain(ACCESS_KEY_ID)
            .doesNotContain(SECRET_ACCESS_KEY)
            .doesNotContain(SESSION_TOKEN);
      }
    }
  }
}
