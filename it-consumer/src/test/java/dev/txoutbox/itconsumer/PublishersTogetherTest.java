package dev.txoutbox.itconsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.ListQueuesResponse;

/**
 * Each broker client starts on the classpath of an application that depends on publisher-kafka,
 * publisher-sqs and publisher-rabbit together (see this module's pom for why that classpath is the
 * one a user gets).
 */
class PublishersTogetherTest {

  private static final String QUEUE_URL = "http://127.0.0.1/000000000000/outbox-events";

  /**
   * The regression: with Netty 4.2 from amqp-client beside the SDK's Netty 4.1, building the client
   * failed with ClassNotFoundException io.netty.util.concurrent.ThreadAwareExecutor. The call
   * through a local HTTP server proves the SDK's Netty client also connects and decodes a reply.
   */
  @Test
  void sqsAsyncClientBuildsAndCallsWithRabbitOnTheClasspath() throws Exception {
    List<String> targets = Collections.synchronizedList(new ArrayList<>());
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/",
        exchange -> {
          targets.add(exchange.getRequestHeaders().getFirst("X-Amz-Target"));
          exchange.getRequestBody().readAllBytes();
          byte[] body =
              ("{\"QueueUrls\":[\"" + QUEUE_URL + "\"]}").getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    try (SqsAsyncClient client =
        SqsAsyncClient.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + server.getAddress().getPort()))
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .build()) {
      ListQueuesResponse response = client.listQueues().get();

      assertThat(response.queueUrls()).containsExactly(QUEUE_URL);
      assertThat(targets).containsExactly("AmazonSQS.ListQueues");
    } finally {
      server.stop(0);
    }
  }

  /** The RabbitMQ service on 127.0.0.1:5672; amqp-client runs without Netty (excluded). */
  @Test
  void rabbitConnectionPublishesWithConfirmWithoutNetty() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(5672);
    factory.setUsername("guest");
    factory.setPassword("guest");
    try (Connection connection = factory.newConnection("txoutbox-it-consumer");
        Channel channel = connection.createChannel()) {
      channel.confirmSelect();
      String queue = channel.queueDeclare().getQueue();
      channel.basicPublish("", queue, true, null, "one".getBytes(StandardCharsets.UTF_8));
      channel.waitForConfirmsOrDie(Duration.ofSeconds(10).toMillis());

      assertThat(connection.getServerProperties()).containsKey("product");
      assertThat(channel.messageCount(queue)).isEqualTo(1);
    }
  }

  /** No broker: the producer starts its sender thread and reports the missing metadata. */
  @Test
  void kafkaProducerStartsAgainstAnUnreachableBroker() throws Exception {
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + unusedPort());
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "txoutbox-it-consumer");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 500);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      assertThat(Thread.getAllStackTraces().keySet())
          .extracting(Thread::getName)
          .contains("kafka-producer-network-thread | txoutbox-it-consumer");
      assertThatThrownBy(() -> producer.send(new ProducerRecord<>("outbox", "k", "v")).get())
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
    }
  }

  /** Every Netty jar on the classpath is of one release: the SDK's. */
  @Test
  void oneNettyVersionOnTheClasspath() throws IOException {
    Map<String, String> versions = new TreeMap<>();
    for (URL url :
        Collections.list(
            getClass().getClassLoader().getResources("META-INF/io.netty.versions.properties"))) {
      Properties properties = new Properties();
      try (InputStream in = url.openStream()) {
        properties.load(in);
      }
      properties.stringPropertyNames().stream()
          .filter(key -> key.endsWith(".version"))
          .forEach(key -> versions.put(key, properties.getProperty(key)));
    }

    assertThat(versions).containsKey("netty-common.version");
    assertThat(versions.values())
        .as("Netty versions: %s", versions)
        .containsOnly(versions.get("netty-common.version"));
  }

  private static int unusedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
