package dev.txoutbox.testing.sqs;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.Props;
import org.elasticmq.actor.QueueManagerActor;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.elasticmq.rest.sqs.TheSQSRestServerBuilder;
import org.elasticmq.util.NowProvider;
import scala.Option;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;

/**
 * An ElasticMQ server (an SQS-compatible broker) in this JVM on a free port of 127.0.0.1, with an
 * SDK client pointed at it that records every {@code SendMessageBatch} request it sends. One per
 * test class. The queues live in an actor of their own, so the HTTP server can be {@linkplain
 * #stopServer() stopped} (connections are then refused, as in an outage) and started again on the
 * same port with every queue and message kept.
 *
 * <pre>{@code
 * try (ElasticMq sqs = ElasticMq.start()) {
 *   String queue = sqs.createQueue("orders", false);
 *   SqsAsyncClient client = ...endpointOverride(sqs.endpoint()).region(Region.US_EAST_1)...;
 *   ... sqs.receive(queue, 1, Duration.ofSeconds(10)) ...
 * }
 * }</pre>
 *
 * <p>Needs {@code org.elasticmq:elasticmq-rest-sqs_2.13} and {@code software.amazon.awssdk:sqs} on
 * the test class path: this kit declares both optional, so add them beside it. Any region and any
 * credentials are accepted; {@link #client()} uses {@code us-east-1} and {@code test}/{@code test}.
 *
 * <p>This class is thread-safe.
 */
public final class ElasticMq implements AutoCloseable {

  private final ActorSystem actors = ActorSystem.create("elasticmq-test");
  private final ActorRef queues =
      actors.actorOf(
          Props.create(
              QueueManagerActor.class,
              () ->
                  new QueueManagerActor(
                      new NowProvider(), SQSRestServerBuilder.sqsLimits(), Option.empty())));
  private final int port;
  private final SqsAsyncClient client;
  private final List<SendMessageBatchRequest> batchRequests = new CopyOnWriteArrayList<>();
  private volatile SQSRestServer server;
  private volatile String rejectMarker;
  private volatile IntConsumer beforeBatchRequest = n -> {};

  private ElasticMq() {
    server = listen(SQSRestServerBuilder.withActorSystem(actors).withDynamicPort());
    port = server.waitUntilStarted().localAddress().getPort();
    client =
        SqsAsyncClient.builder()
            .endpointOverride(endpoint())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .overrideConfiguration(o -> o.addExecutionInterceptor(new Recorder()))
            .build();
  }

  private SQSRestServer listen(TheSQSRestServerBuilder builder) {
    SQSRestServer started =
        builder.withQueueManagerActor(queues).withInterface("127.0.0.1").start();
    started.waitUntilStarted();
    return started;
  }

  /** Stops the HTTP server: connecting is refused until {@link #startServer()}; queues are kept. */
  public synchronized void stopServer() {
    server.stopAndWait();
  }

  /** Starts the HTTP server again, on the same port, with the queues and messages it had. */
  public synchronized void startServer() {
    server = listen(SQSRestServerBuilder.withActorSystem(actors).withPort(port));
  }

  /**
   * Runs {@code action} with the number (from 1) of each {@code SendMessageBatch} request before
   * the client sends it.
   */
  public void beforeBatchRequest(IntConsumer action) {
    this.beforeBatchRequest = action;
  }

  /**
   * Starts a server on a free port of 127.0.0.1 and waits until it listens; the caller closes it.
   */
  public static ElasticMq start() {
    return new ElasticMq();
  }

  /** The recording client of this server; closed by {@link #close()}. */
  public SqsAsyncClient client() {
    return client;
  }

  /** Where the server listens, for clients of other code (region us-east-1, any credentials). */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Every SendMessageBatch request sent through {@link #client()}, in order. */
  public List<SendMessageBatchRequest> batchRequests() {
    return batchRequests;
  }

  /**
   * Makes SQS itself refuse, as the sender's fault, every batch entry whose body contains {@code
   * marker}: the client appends a control character to such a body after the publisher has checked
   * it, and ElasticMQ answers with a per-entry {@code InvalidMessageContents}. {@code null} stops.
   */
  public void rejectEntriesContaining(String marker) {
    this.rejectMarker = marker;
  }

  /** Creates a queue with a unique name starting with {@code prefix}; returns its name. */
  public String createQueue(String prefix, boolean fifo) {
    String name =
        prefix + "-" + UUID.randomUUID().toString().substring(0, 8) + (fifo ? ".fifo" : "");
    Map<QueueAttributeName, String> attributes = new HashMap<>();
    if (fifo) {
      attributes.put(QueueAttributeName.FIFO_QUEUE, "true");
    }
    client.createQueue(r -> r.queueName(name).attributes(attributes)).join();
    return name;
  }

  /** The URL of queue {@code name}. */
  public String queueUrl(String name) {
    return client.getQueueUrl(r -> r.queueName(name)).join().queueUrl();
  }

  /**
   * Receives and deletes messages from queue {@code name} until {@code count} arrived or {@code
   * timeout} passed; returns them (at most {@code count}) in the order received.
   */
  public List<Message> receive(String name, int count, Duration timeout) {
    String url = queueUrl(name);
    List<Message> received = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (received.size() < count && System.nanoTime() < deadline) {
      List<Message> page =
          client
              .receiveMessage(
                  r ->
                      r.queueUrl(url)
                          .maxNumberOfMessages(Math.min(10, count - received.size()))
                          .waitTimeSeconds(1)
                          .messageAttributeNames("All")
                          .messageSystemAttributeNames(
                              MessageSystemAttributeName.MESSAGE_GROUP_ID,
                              MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID))
              .join()
              .messages();
      if (!page.isEmpty()) {
        received.addAll(page);
        client
            .deleteMessageBatch(
                r ->
                    r.queueUrl(url)
                        .entries(
                            page.stream()
                                .map(
                                    m ->
                                        DeleteMessageBatchRequestEntry.builder()
                                            .id(m.messageId())
                                            .receiptHandle(m.receiptHandle())
                                            .build())
                                .toList()))
            .join();
      }
    }
    return received;
  }

  /** Messages in queue {@code name}, visible or not, as SQS approximates them. */
  public int approximateDepth(String name) {
    Map<QueueAttributeName, String> attributes =
        client
            .getQueueAttributes(
                r ->
                    r.queueUrl(queueUrl(name))
                        .attributeNames(
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                            QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE))
            .join()
            .attributes();
    return Integer.parseInt(attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES))
        + Integer.parseInt(
            attributes.get(QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE));
  }

  /** Closes the client, stops the server and its actors, and drops every queue. */
  @Override
  public void close() {
    try {
      client.close();
    } finally {
      try {
        server.stopAndWait();
      } finally {
        actors.terminate();
        actors.getWhenTerminated().toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
      }
    }
  }

  private final class Recorder implements ExecutionInterceptor {
    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
      SdkRequest request = context.request();
      if (request instanceof SendMessageBatchRequest batch) {
        int number;
        synchronized (batchRequests) { // so that request n is batchRequests().get(n - 1)
          number = batchRequests.size() + 1;
          batchRequests.add(batch);
        }
        beforeBatchRequest.accept(number);
      }
    }

    @Override
    public SdkRequest modifyRequest(Context.ModifyRequest context, ExecutionAttributes attributes) {
      String marker = rejectMarker;
      if (marker == null || !(context.request() instanceof SendMessageBatchRequest batch)) {
        return context.request();
      }
      return batch.toBuilder()
          .entries(
              batch.entries().stream()
                  .map(
                      e ->
                          e.messageBody().contains(marker)
                              ? e.toBuilder().messageBody(e.messageBody() + "\u0001").build()
                              : e)
                  .toList())
          .build();
    }
  }
}
