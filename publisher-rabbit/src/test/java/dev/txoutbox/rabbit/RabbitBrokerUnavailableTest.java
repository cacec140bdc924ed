package dev.txoutbox.rabbit;

import static dev.txoutbox.rabbit.Messages.events;
import static dev.txoutbox.rabbit.Messages.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The publisher against the real broker behind {@link AmqpProxy}: a refused connection and a
 * blocked one are reported as an unavailable broker, which costs no attempt, and publishing resumes
 * by itself once the broker is back.
 */
class RabbitBrokerUnavailableTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String connectionName = "txoutbox-test-unavailable-" + UUID.randomUUID();
  private TestTopology topology;
  private AmqpProxy proxy;
  private RabbitPublisher publisher;

  @BeforeEach
  void setUp() throws Exception {
    topology = TestTopology.create("unavailable", "order.*");
    proxy = AmqpProxy.toTestBroker();
    publisher = builder().build();
  }

  /** Through the proxy, to the test's exchange, waiting one second for confirms. */
  private RabbitPublisher.Builder builder() {
    return RabbitPublisher.builder()
        .connectionFactory(proxy.factory())
        .exchange(topology.exchange())
        .connectionName(connectionName)
        .sendTimeout(Duration.ofSeconds(1));
  }

  @AfterEach
  void tearDown() throws Exception {
    publisher.close();
    proxy.close();
    topology.close();
  }

  private List<Status> statuses(List<OutboxMessage> batch) throws InterruptedException {
    return publisher.publish(batch).stream().map(PublishResult::status).toList();
  }

  @Test
  void refusedConnectionIsBrokerUnavailableAndTheNextBatchAfterwardsReconnects() throws Exception {
    List<OutboxMessage> before = events(5, "order.created");
    assertThat(statuses(before)).containsOnly(Status.PUBLISHED);

    proxy.refuse();
    List<PublishResult> refused = publisher.publish(events(5, "order.created"));
    proxy.accept();
    List<OutboxMessage> after = events(5, "order.created");

    assertThat(refused)
        .allSatisfy(r -> assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE));
    assertThat(statuses(after)).containsOnly(Status.PUBLISHED);
    assertThat(proxy.connectionsAccepted()).isEqualTo(2);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(topology.receivedIds())
                    .containsAll(ids(before))
                    .containsAll(ids(after)));
  }

  @Test
  void blockedConnectionIsBrokerUnavailableUntilTheBrokerUnblocksIt() throws Exception {
    assertThat(statuses(events(1, "order.created"))).containsOnly(Status.PUBLISHED);

    proxy.block("low on memory");

    // the client hears of the block on its own thread: the first batches may still go out
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              PublishResult result = publisher.publish(events(1, "order.created")).get(0);
              assertThat(result.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(result.reason()).contains("blocks publishing", "low on memory");
            });
    assertThat(statuses(events(3, "order.created"))).containsOnly(Status.BROKER_UNAVAILABLE);

    proxy.unblock();

    List<OutboxMessage> after = events(3, "order.created");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(statuses(after)).containsOnly(Status.PUBLISHED));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).containsAll(ids(after)));
    assertThat(proxy.connectionsAccepted()).isEqualTo(1);
  }

  @Test
  void brokerSilentUntilTheConfirmDeadlineIsBrokerUnavailableAndItsConnectionDropped()
      throws Exception {
    assertThat(publisher.publish(events(1, "order.created"))).allMatch(PublishResult::isPublished);

    proxy.stall();
    List<PublishResult> unanswered;
    try {
      unanswered = publisher.publish(events(3, "order.created"));
    } finally {
      proxy.resume();
    }

    assertThat(unanswered)
        .allSatisfy(
            r -> {
              assertThat(r.status()).isEqualTo(Status.BROKER_UNAVAILABLE);
              assertThat(r.reason()).contains("answered no message of the batch");
            });
    List<OutboxMessage> after = events(3, "order.created");
    assertThat(publisher.publish(after)).allMatch(PublishResult::isPublished);
    // the silent connection was dropped and the next batch opened a new one
    assertThat(proxy.connectionsAccepted()).isEqualTo(2);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).containsAll(ids(after)));
  }

  @Test
  void brokerSilentWhileAnExchangeIsCheckedIsBrokerUnavailableWithinTheSendTimeout()
      throws Exception {
    String other = topology.declareOtherExchange("other", "order.*");
    RabbitPublisher twoExchanges =
        builder()
            .router(topology.routing(m -> m.aggregateId().equals("other"), other))
            .connectionName(connectionName + "-two-exchanges")
            .build();
    try {
      assertThat(twoExchanges.publish(events(1, "order.created")))
          .allMatch(PublishResult::isPublished);
      List<OutboxMessage> toOther =
          List.of(Messages.event("order", "other", "order.created", "{}"));

      proxy.stall();
      CompletableFuture<List<PublishResult>> checking =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return twoExchanges.publish(toOther);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      List<PublishResult> unanswered;
      try {
        // The exchange check is a channel RPC: without a bound it would wait ten minutes.
        unanswered = checking.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        proxy.resume();
      }

      assertThat(unanswered)
          .extracting(PublishResult::status)
          .containsOnly(Status.BROKER_UNAVAILABLE);
      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () -> assertThat(twoExchanges.publish(toOther)).allMatch(PublishResult::isPublished));
    } finally {
      twoExchanges.close();
    }
  }
}
