package dev.txoutbox.bench;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.sqs.SqsPublisher;
import java.net.URI;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/** ElasticMQ in this JVM, one standard queue. */
final class SqsTarget implements Target {

  private static final String QUEUE = "bench-orders";

  private final SQSRestServer server;
  private final SqsAsyncClient client;
  private final String queueUrl;

  SqsTarget() {
    server = SQSRestServerBuilder.withInterface("127.0.0.1").withDynamicPort().start();
    int port = server.waitUntilStarted().localAddress().getPort();
    client =
        SqsAsyncClient.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + port))
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
    return SqsPublisher.builder().client(client).route("order", queueUrl).build();
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
