package dev.txoutbox.rabbit;

import static dev.txoutbox.rabbit.Messages.event;
import static dev.txoutbox.rabbit.Messages.events;
import static dev.txoutbox.rabbit.Messages.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Delivery;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.RunOrder;
import dev.txoutbox.testing.TestMessages;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The RabbitMQ publisher's own behaviour, against the real broker. */
class RabbitPublisherTest {

  private static final Duration RECEIVE_TIMEOUT = Duration.ofSeconds(30);

  private final List<RabbitPublisher> publishers = new ArrayList<>();
  private final String connectionName = "txoutbox-test-" + UUID.randomUUID();
  private TestTopology topology;

  @BeforeEach
  void createTopology() throws Exception {
    topology = TestTopology.create("publisher", "order.*");
  }

  @AfterEach
  void cleanUp() throws Exception {
    publishers.forEach(RabbitPublisher::close);
    topology.close();
  }

  private RabbitPublisher.Builder builder() {
    return RabbitPublisher.builder()
        .connectionFactory(RabbitTestBroker.factory())
        .exchange(topology.exchange())
        .connectionName(connectionName);
  }

  private RabbitPublisher publisher(RabbitPublisher.Builder builder) {
    RabbitPublisher publisher = builder.build();
    publishers.add(publisher);
    return publisher;
  }

  @Test
  void setsAmqpPropertiesAndIdentityHeadersOnEveryMessage() throws Exception {
    RabbitPublisher publisher = publisher(builder());
    OutboxMessage sent =
        TestMessages.message()
            .sequence(42)
            .aggregateType("order")
            .aggregateId("o-7")
            .eventType("order.created")
            .payload("{\"total\":12.5}")
            .headers(Map.of("traceparent", "00-abc-def-01", OutboxHeaders.EVENT_ID, "forged"))
            .createdAt(Instant.parse("2026-11-30T06:50:38.123Z"))
            .attempt(2)
            .build();

    assertThat(publisher.publish(List.of(sent))).containsExactly(PublishResult.published());

    Delivery delivery = topology.take(1, RECEIVE_TIMEOUT).get(0);
    AMQP.BasicProperties properties = delivery.getProperties();
    assertThat(properties.getMessageId()).isEqualTo(sent.id().toString());
    assertThat(properties.getType()).isEqualTo("order.created");
    assertThat(properties.getContentType()).isEqualTo("application/json");
    assertThat(properties.getDeliveryMode()).isEqualTo(2);
    assertThat(properties.getTimestamp().toInstant()).isEqualTo("2026-11-30T06:50:38Z");
    assertThat(delivery.getEnvelope().getRoutingKey()).isEqualTo("order.created");
    assertThat(RabbitPublisherContractTest.received(delivery).headers())
        .containsEntry(OutboxHeaders.EVENT_ID, sent.id().toString())
        .containsEntry(OutboxHeaders.EVENT_TYPE, "order.created")
        .containsEntry(OutboxHeaders.AGGREGATE_TYPE, "order")
        .containsEntry(OutboxHeaders.AGGREGATE_ID, "o-7")
        .containsEntry(OutboxHeaders.CREATED_AT, "2026-11-30T06:50:38.123000Z")
        .containsEntry("traceparent", "00-abc-def-01");
  }

  @Test
  void storedHeadersRabbitMqWouldInterpretArriveRenamedAndNoneIsDropped() throws Exception {
    RabbitPublisher publisher = publisher(builder());
    Map<String, String> stored = new HashMap<>();
    stored.put("x-death", "forged dead-letter history");
    stored.put("x-delay", "86400000");
    stored.put("x-match", "any");
    stored.put("CC", "elsewhere");
    stored.put("BCC", "hidden");
    stored.put("outbox-stored-x-death", "a header already named like a renamed one");
    stored.put("X-Request-Id", "r-1");
    stored.put("tenant", "t-1");
    OutboxMessage withReserved = TestMessages.message().headers(stored).build();
    List<OutboxMessage> batch =
        List.of(event("order.created"), withReserved, event("order.created"));

    assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);

    List<Delivery> received = topology.take(3, RECEIVE_TIMEOUT);
    assertThat(received).hasSize(3);
    Delivery delivery =
        received.stream()
            .filter(d -> d.getProperties().getMessageId().equals(withReserved.id().toString()))
            .findFirst()
            .orElseThrow();
    Map<String, String> headers = RabbitHeaders.read(delivery);
    assertThat(headers)
        .doesNotContainKeys("x-death", "x-delay", "x-match", "CC", "BCC")
        .containsEntry("outbox-stored-x-death", "forged dead-letter history")
        .containsEntry("outbox-stored-x-delay", "86400000")
        .containsEntry("outbox-stored-x-match", "any")
        .containsEntry("outbox-stored-CC", "elsewhere")
        .containsEntry("outbox-stored-BCC", "hidden")
        .containsEntry(
            "outbox-stored-outbox-stored-x-death", "a header already named like a renamed one")
        .containsEntry("X-Request-Id", "r-1")
        .containsEntry("tenant", "t-1")
        .containsEntry(OutboxHeaders.EVENT_ID, withReserved.id().toString());
  }

  @Test
  void unroutableMessageFailsRetryablyAlthoughTheBrokerAcksIt() throws Exception {
    RabbitPublisher publisher = publisher(builder());
    OutboxMessage routed = event("order.created");
    OutboxMessage unroutable = event("invoice.created");

    List<PublishResult> results = publisher.publish(List.of(routed, unroutable));

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results.get(1).reason()).contains("312").contains("NO_ROUTE");
    assertThat(topology.takeIds(2, Duration.ofMillis(500))).containsExactly(routed.id().toString());
  }

  @Test
  void unroutableMessageReachesAQueueBoundLater() throws Exception {
    RabbitPublisher publisher = publisher(builder());
    OutboxMessage early = event("invoice.created");
    assertThat(publisher.publish(List.of(early)).get(0).isPublished()).isFalse();

    topology.bind("invoice.*");

    assertThat(publisher.publish(List.of(early)).get(0).isPublished()).isTrue();
    assertThat(topology.take(1, RECEIVE_TIMEOUT)).hasSize(1);
  }

  @Test
  void unroutableMessageIsADeadLetterWhenConfigured() throws Exception {
    RabbitPublisher publisher = publisher(builder().unroutableIsPermanent(true));

    PublishResult result = publisher.publish(List.of(event("invoice.created"))).get(0);

    assertThat(result.isPermanent()).isTrue();
  }

  @Test
  void routerChoosesExchangeAndRoutingKeyPerEvent() throws Exception {
    String other = topology.declareOtherExchange("other", "by-aggregate.#");
    RabbitPublisher publisher =
        publisher(
            builder()
                .router(
                    m ->
                        m.aggregateType().equals("payment")
                            ? Optional.of(
                                new RabbitRouter.Route(other, "by-aggregate." + m.aggregateId()))
                            : Optional.of(
                                new RabbitRouter.Route(topology.exchange(), m.eventType()))));
    OutboxMessage payment = event("payment", "p-9", "payment.settled", "{}");
    OutboxMessage order = event("order.created");

    assertThat(publisher.publish(List.of(payment, order))).allMatch(PublishResult::isPublished);

    assertThat(topology.take(2, RECEIVE_TIMEOUT))
        .extracting(d -> d.getEnvelope().getExchange() + " " + d.getEnvelope().getRoutingKey())
        .containsExactlyInAnyOrder(
            other + " by-aggregate.p-9", topology.exchange() + " order.created");
  }

  @Test
  void messageToAMissingExchangeFailsAloneAndItsNeighboursArePublished() throws Exception {
    String missing = topology.exchange() + ".missing";
    RabbitPublisher publisher =
        publisher(builder().router(topology.routing(m -> m.aggregateId().equals("lost"), missing)));
    OutboxMessage lost = event("order", "lost", "order.created", "{}");
    List<OutboxMessage> batch = List.of(event("order.created"), lost, event("order.created"));

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(Status.PUBLISHED, Status.RETRYABLE_FAILURE, Status.PUBLISHED);
    assertThat(results.get(1).reason()).contains("does not exist");
    assertThat(topology.take(2, RECEIVE_TIMEOUT)).hasSize(2);
  }

  @Test
  void exchangeDeletedAfterUseIsCheckedAgainAfterOneFailedBatch() throws Exception {
    String doomed = topology.declareOtherExchange("doomed", "order.*");
    RabbitPublisher publisher =
        publisher(
            builder().router(topology.routing(m -> m.aggregateId().equals("doomed"), doomed)));
    OutboxMessage toDoomed = event("order", "doomed", "order.created", "{}");
    assertThat(publisher.publish(List.of(toDoomed))).allMatch(PublishResult::isPublished);
    topology.channel().exchangeDelete(doomed);

    List<PublishResult> whileUnknown = publisher.publish(List.of(event("order.created"), toDoomed));
    List<PublishResult> afterCheck = publisher.publish(List.of(event("order.created"), toDoomed));

    assertThat(whileUnknown).noneMatch(PublishResult::isPermanent);
    assertThat(whileUnknown.get(1).isPublished()).isFalse();
    assertThat(afterCheck)
        .extracting(PublishResult::status)
        .containsExactly(Status.PUBLISHED, Status.RETRYABLE_FAILURE);
  }

  @Test
  void nackedMessagesAreRetryableFailures() throws Exception {
    topology.close();
    topology =
        TestTopology.withQueueArguments(
            "nack", Map.of("x-max-length", 1, "x-overflow", "reject-publish"), "order.*");
    RabbitPublisher publisher = publisher(builder());
    // three aggregates: a nack of one aggregate's event would hold back the later ones of it
    List<OutboxMessage> batch =
        List.of(
            event("order", "n-0", "order.created", "{}"),
            event("order", "n-1", "order.created", "{}"),
            event("order", "n-2", "order.created", "{}"));

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.subList(1, 3))
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.RETRYABLE_FAILURE);
              assertThat(r.reason()).contains("nack");
            });
  }

  @Test
  void oversizedMessageFailsPermanentlyAndIsNotSent() throws Exception {
    RabbitPublisher publisher = publisher(builder().maxMessageBytes(64));
    OutboxMessage big =
        event("order", "o", "order.created", "{\"pad\":\"" + "x".repeat(64) + "\"}");
    OutboxMessage small = event("order.created");

    List<PublishResult> results = publisher.publish(List.of(big, small));

    assertThat(results.get(0).isPermanent()).isTrue();
    assertThat(results.get(0).reason()).contains("maxMessageBytes");
    assertThat(results.get(1).isPublished()).isTrue();
    assertThat(topology.takeIds(2, Duration.ofMillis(500))).containsExactly(small.id().toString());
  }

  @Test
  void oneEventWhoseHeadersExceedTheFrameMaxFailsAloneAndItsBatchIsPublished() throws Exception {
    // What the writer accepts: 64 headers of 8 KiB, a content header four times RabbitMQ's frame.
    Map<String, String> huge = new HashMap<>();
    for (int i = 0; i < 64; i++) {
      huge.put("h" + i, "v".repeat(8 * 1024));
    }
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 11; i++) {
      batch.add(event("order", "o-" + i, "order.created", "{\"n\":" + i + "}"));
    }
    batch.set(3, batch.get(3).toBuilder().headers(huge).build());
    RabbitPublisher publisher = publisher(builder());

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results.get(3).isPermanent()).as("the oversized event").isTrue();
    assertThat(results.get(3).reason())
        .contains("content header of")
        .contains("exceeds the connection's frame_max of 131072 bytes");
    List<OutboxMessage> healthy = new ArrayList<>(batch);
    healthy.remove(3);
    assertThat(results.subList(0, 3)).allMatch(PublishResult::isPublished);
    assertThat(results.subList(4, 11)).allMatch(PublishResult::isPublished);
    assertThat(topology.takeIds(10, RECEIVE_TIMEOUT))
        .containsExactlyInAnyOrderElementsOf(ids(healthy));
    assertThat(publisher.publish(List.of(event("order.created"))))
        .as("the channel and connection are still fine")
        .containsExactly(PublishResult.published());
  }

  @Test
  void anEventThatCannotBeSentHoldsBackTheLaterEventsOfItsAggregateOnly() throws Exception {
    String missing = topology.exchange() + ".missing";
    RabbitPublisher publisher =
        publisher(
            builder()
                .maxMessageBytes(64)
                .router(topology.routing(m -> m.eventType().equals("order.lost"), missing)));
    OutboxMessage a1 = event("order", "a", "order.created", "{}");
    OutboxMessage a2 = event("order", "a", "order.created", "{\"pad\":\"" + "x".repeat(64) + "\"}");
    OutboxMessage b1 = event("order", "b", "order.created", "{}");
    OutboxMessage a3 = event("order", "a", "order.created", "{}");
    OutboxMessage c1 = event("order", "c", "order.lost", "{}");
    OutboxMessage b2 = event("order", "b", "order.created", "{}");
    OutboxMessage c2 = event("order", "c", "order.created", "{}");
    OutboxMessage a4 = event("order", "a", "order.created", "{}");

    List<PublishResult> results = publisher.publish(List.of(a1, a2, b1, a3, c1, b2, c2, a4));

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED, // a1
            Status.PERMANENT_FAILURE, // a2: too large
            Status.PUBLISHED, // b1
            Status.RETRYABLE_FAILURE, // a3: held back
            Status.RETRYABLE_FAILURE, // c1: its exchange is missing
            Status.PUBLISHED, // b2
            Status.RETRYABLE_FAILURE, // c2: held back
            Status.RETRYABLE_FAILURE); // a4: held back
    assertThat(List.of(results.get(3), results.get(6), results.get(7)))
        .allSatisfy(r -> assertThat(r.reason()).isEqualTo(RunOrder.NOT_SENT));
    assertThat(topology.takeIds(8, Duration.ofMillis(500)))
        .as("held back events are not sent; the others arrive in order")
        .containsExactly(a1.id().toString(), b1.id().toString(), b2.id().toString());
  }

  @Test
  void routingKeyLongerThanAmqpAllowsFailsPermanently() throws Exception {
    RabbitPublisher publisher = publisher(builder());

    List<PublishResult> results =
        publisher.publish(
            List.of(
                event("order", "long-key", "order." + "é".repeat(200), "{}"),
                event("order.created")));

    assertThat(results.get(0).isPermanent()).isTrue();
    assertThat(results.get(0).reason()).contains("routing key");
    assertThat(results.get(1).isPublished()).isTrue();
  }

  @Test
  void aRouterThatThrowsOrNamesNoRouteFailsOnlyThatEvent() throws Exception {
    RabbitPublisher publisher =
        publisher(
            builder()
                .router(
                    m ->
                        switch (m.aggregateId()) {
                          case "bad" -> throw new IllegalArgumentException("no route for bad");
                          case "nowhere" -> Optional.empty();
                          case "null" -> null;
                          default ->
                              Optional.of(
                                  new RabbitRouter.Route(topology.exchange(), m.eventType()));
                        }));
    OutboxMessage sent = event("order.created");

    List<PublishResult> results =
        publisher.publish(
            List.of(
                event("order", "bad", "order.created", "{}"),
                event("order", "nowhere", "order.created", "{}"),
                event("order", "null", "order.created", "{}"),
                sent));

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PERMANENT_FAILURE,
            Status.PERMANENT_FAILURE,
            Status.PERMANENT_FAILURE,
            Status.PUBLISHED);
    assertThat(results)
        .extracting(PublishResult::reason)
        .containsExactly(
            "the RabbitMQ router failed: java.lang.IllegalArgumentException: no route for bad",
            "the RabbitMQ router has no route for aggregate type 'order'"
                + " (event type 'order.created')",
            "the RabbitMQ router returned null instead of a route",
            null);
    assertThat(topology.takeIds(1, RECEIVE_TIMEOUT)).containsExactly(sent.id().toString());
  }

  @Test
  void declaresTheExchangeWhenItConnects() throws Exception {
    String declared = topology.exchange() + ".declared";
    RabbitPublisher publisher =
        publisher(
            RabbitPublisher.builder()
                .connectionFactory(RabbitTestBroker.factory())
                .exchange(declared)
                .declareExchange(BuiltinExchangeType.TOPIC, false));
    try {
      publisher.publish(List.of(event("order.created")));

      assertThat(topology.channel().exchangeDeclarePassive(declared)).isNotNull();
    } finally {
      topology.channel().exchangeDelete(declared);
    }
  }

  @Test
  void concurrentBatchesEachUseAChannelOfTheirOwnAndNoChannelLeaks() throws Exception {
    RabbitPublisher publisher = publisher(builder());
    int threads = 6;
    int batchesPerThread = 10;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<String>>> futures = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  List<String> published = new ArrayList<>();
                  for (int b = 0; b < batchesPerThread; b++) {
                    List<OutboxMessage> batch = events(50, "order.created");
                    assertThat(publisher.publish(batch)).allMatch(PublishResult::isPublished);
                    published.addAll(ids(batch));
                  }
                  return published;
                }));
      }
      List<String> published = new ArrayList<>();
      for (Future<List<String>> future : futures) {
        published.addAll(future.get());
      }

      await()
          .atMost(RECEIVE_TIMEOUT)
          .untilAsserted(() -> assertThat(topology.receivedIds()).hasSize(published.size()));
      assertThat(topology.receivedIds()).containsExactlyInAnyOrderElementsOf(published);
      assertThat(RabbitTestBroker.channelCount(connectionName)).get().matches(n -> n <= threads);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void connectionClosedMidBatchMakesTheUnconfirmedBrokerUnavailableAndTheNextBatchReconnects()
      throws Exception {
    AtomicBoolean closeNow = new AtomicBoolean();
    RabbitPublisher publisher =
        publisher(
            builder()
                .router(
                    m -> {
                      if (m.aggregateId().equals("cut") && closeNow.compareAndSet(true, false)) {
                        RabbitTestBroker.closeConnection(connectionName);
                      }
                      return Optional.of(
                          new RabbitRouter.Route(topology.exchange(), m.eventType()));
                    }));
    assertThat(publisher.publish(events(5, "order.created"))).allMatch(PublishResult::isPublished);
    String firstConnection = RabbitTestBroker.connectionPid(connectionName).orElseThrow();
    List<OutboxMessage> batch = new ArrayList<>(events(20, "order.created"));
    batch.add(event("order", "cut", "order.created", "{}"));
    batch.addAll(events(20, "order.created"));

    closeNow.set(true);
    List<PublishResult> results = publisher.publish(batch);

    // nothing is known to be wrong with any message: none costs an attempt
    assertThat(results)
        .extracting(PublishResult::status)
        .containsOnly(Status.PUBLISHED, Status.BROKER_UNAVAILABLE);
    assertThat(results.subList(20, 41)).allMatch(PublishResult::isBrokerUnavailable);
    List<String> publishedIds = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      if (results.get(i).isPublished()) {
        publishedIds.add(batch.get(i).id().toString());
      }
    }
    List<OutboxMessage> after = events(10, "order.created");
    assertThat(publisher.publish(after)).allMatch(PublishResult::isPublished);
    assertThat(RabbitTestBroker.connectionPid(connectionName)).get().isNotEqualTo(firstConnection);
    await()
        .atMost(RECEIVE_TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(topology.receivedIds())
                    .containsAll(publishedIds)
                    .containsAll(ids(after)));
  }

  @Test
  void unreachableBrokerIsBrokerUnavailable() throws Exception {
    RabbitPublisher publisher =
        publisher(
            RabbitPublisher.builder()
                .connectionFactory(RabbitTestBroker.factoryToAClosedPort())
                .exchange("x"));

    List<PublishResult> results = publisher.publish(events(3, "order.created"));

    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("cannot reach RabbitMQ").doesNotContain("guest:");
            });
  }

  @Test
  void publishAfterCloseIsRejectedAndCloseIsIdempotent() throws Exception {
    RabbitPublisher publisher = publisher(builder());
    publisher.publish(List.of(event("order.created")));

    publisher.close();
    publisher.close();

    assertThatThrownBy(() -> publisher.publish(List.of(event("order.created"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> RabbitTestBroker.connectionPid(connectionName).isEmpty());
  }
}
