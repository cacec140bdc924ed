package dev.txoutbox.bench;

import dev.txoutbox.spi.Publisher;
import java.net.URI;
import java.util.Map;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * ElasticMQ in this JVM, one standard queue. The publisher is the {@code sqs} provider's, with an
 * SDK client of its own found the SDK's way, as the standalone relay's: ElasticMQ takes any
 * credentials, so unless some are set, {@code aws.accessKeyId} and {@code aws.secretAccessKey} (the
 * first source of the SDK's default chain) are set to dummies for this process.
 */
final class SqsTarget implements Target {

  private static final String QUEUE = "bench-orders";

  private final SQSRestServer server;
  private final SqsAsyncClient client;
  private final String endpoint;
  private final String queueUrl;

  SqsTarget() {
    if (System.getProperty("aws.accessKeyId") == null
        && System.getenv("AWS_ACCESS_KEY_ID") == null) {
      System.setProperty("aws.accessKeyId", "bench");
      System.setProperty("aws.secretAccessKey", "bench");
    }
    server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
    int port = server.waitUntilStarted().localAddress().getPort();
    endpoint = "http://127.0.0.1:" + port;
    client =
        SqsAsyncClient.builder()
            .endpointOverride(URI.create(endpoint))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("bench", "bench")))
            .build();
    queueUrl = client.createQueue(r -> r.queueName(QUEUE)).join().queueUrl();
  }

  @Override
  public String name() {
    return "sqs (ElasticMQ)";
  }

  @Override
  public Publisher publisher() {
    return Publishers.create(
        "sqs",
        Map.of(
            "sqs-region",
            Region.US_EAST_1.id(),
            "sqs-endpoint",
            endpoint,
            "queue.order",
            queueUrl));
  }

  @Override
  public void afterRun() {
    client.purgeQueue(r -> r.queueUrl(queueUrl)).join();
  }

  @Override
  public void close() {
    client.close();
    server.stopAndWait();
  }
}
