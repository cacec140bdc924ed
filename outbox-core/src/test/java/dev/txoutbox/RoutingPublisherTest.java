package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.RunOrder;
import dev.txoutbox.testing.TestMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The routing logic of {@link RoutingPublisher}, with fake delegates. */
class RoutingPublisherTest {

  private OutboxMessage message(String aggregateType, String aggregateId, String eventType) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(eventType)
        .build();
  }

  /** Records each batch it gets and answers each message as its script says. */
  private static class Fake implements Publisher {
    final String name;
    final List<List<OutboxMessage>> batches = new ArrayList<>();
    final AtomicInteger closed = new AtomicInteger();
    Function<OutboxMessage, PublishResult> script = m -> PublishResult.published();

    Fake(String name) {
      this.name = name;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      batches.add(List.copyOf(messages));
      return messages.stream().map(script).toList();
    }

    List<OutboxMessage> sent() {
      return batches.stream().flatMap(List::stream).toList();
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public String describe() {
      return name + "{secret=****}";
    }

    @Override
    public void close() {
      closed.incrementAndGet();
    }
  }

  private final Fake kafka = new Fake("kafka");
  private final Fake sqs = new Fake("sqs");

  @Test
  void routesEachEventByAggregateTypeInOneBatchPerDelegateKeepingTheBatchOrder() throws Exception {
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType().route("order", kafka).route("invoice", sqs).build();
    OutboxMessage o1 = message("order", "1", "order.created");
    OutboxMessage i1 = message("invoice", "9", "invoice.issued");
    OutboxMessage o2 = message("order", "2", "order.created");
    OutboxMessage o3 = message("order", "1", "order.paid");
    OutboxMessage i2 = message("invoice", "9", "invoice.paid");

    List<PublishResult> results = routing.publish(List.of(o1, i1, o2, o3, i2));

    assertThat(results).allMatch(PublishResult::isPublished).hasSize(5);
    assertThat(kafka.batches).containsExactly(List.of(o1, o2, o3));
    assertThat(sqs.batches).containsExactly(List.of(i1, i2));
  }

  @Test
  void onePublisherServingSeveralKeysGetsOneBatch() throws Exception {
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType().route("order", kafka).route("invoice", kafka).build();
    OutboxMessage o1 = message("order", "1", "order.created");
    OutboxMessage i1 = message("invoice", "9", "invoice.issued");

    assertThat(routing.publish(List.of(o1, i1))).allMatch(PublishResult::isPublished);
    assertThat(kafka.batches).containsExactly(List.of(o1, i1));
  }

  @Test
  void anAggregatesEventsOnDifferentDelegatesAreSentInTurnAndOthersTogether() throws Exception {
    RoutingPublisher routing =
        RoutingPublisher.byEventType()
            .route("order.created", kafka)
            .route("order.paid", sqs)
            .build();
    OutboxMessage a1 = message("order", "a", "order.created");
    OutboxMessage b1 = message("order", "b", "order.created");
    OutboxMessage a2 = message("order", "a", "order.paid");
    OutboxMessage b2 = message("order", "b", "order.created");
    OutboxMessage a3 = message("order", "a", "order.created");

    List<PublishResult> results = routing.publish(List.of(a1, b1, a2, b2, a3));

    assertThat(results).allMatch(PublishResult::isPublished).hasSize(5);
    // b never changes delegate: all of it goes with a's first event; a3 waits for a2's answer.
    assertThat(kafka.batches).containsExactly(List.of(a1, b1, b2), List.of(a3));
    assertThat(sqs.batches).containsExactly(List.of(a2));
  }

  @Test
  void onceAnEventFailsTheLaterOnesOfItsAggregateAreNotSentToAnyDelegate() throws Exception {
    RoutingPublisher routing =
        RoutingPublisher.byEventType()
            .route("order.created", kafka)
            .route("order.paid", sqs)
            .build();
    OutboxMessage a1 = message("order", "a", "order.created");
    OutboxMessage b1 = message("order", "b", "order.created");
    OutboxMessage a2 = message("order", "a", "order.paid");
    OutboxMessage b2 = message("order", "b", "order.paid");
    kafka.script =
        m -> m == a1 ? PublishResult.brokerUnavailable("down") : PublishResult.published();

    List<PublishResult> results = routing.publish(List.of(a1, b1, a2, b2));

    assertThat(results.get(0).status()).isEqualTo(Status.BROKER_UNAVAILABLE);
    assertThat(results.get(1).isPublished()).isTrue();
    assertThat(results.get(2))
        .as("held back like its broker-unavailable predecessor")
        .isEqualTo(PublishResult.brokerUnavailable(RunOrder.NOT_SENT));
    assertThat(results.get(3).isPublished()).isTrue();
    assertThat(sqs.sent()).containsExactly(b2);
  }

  @Test
  void anUnknownRouteIsAPermanentFailureAndTheRestOfTheBatchGoesOn() throws Exception {
    RoutingPublisher routing = RoutingPublisher.byAggregateType().route("order", kafka).build();
    OutboxMessage r1 = message("refund", "r", "refund.requested");
    OutboxMessage o1 = message("order", "1", "order.created");
    OutboxMessage r2 = message("refund", "r", "refund.paid");

    List<PublishResult> results = routing.publish(List.of(r1, o1, r2));

    assertThat(results.get(0).status()).isEqualTo(Status.PERMANENT_FAILURE);
    assertThat(results.get(0).reason())
        .isEqualTo(
            "the routing publisher's router by aggregate type has no route for aggregate type"
                + " 'refund' (event type 'refund.requested')");
    assertThat(results.get(1).isPublished()).isTrue();
    assertThat(results.get(2))
        .as("a later event of the failed aggregate is held back, not failed for good")
        .isEqualTo(PublishResult.retryable(RunOrder.NOT_SENT));
    assertThat(kafka.batches).containsExactly(List.of(o1));
  }

  @Test
  void aKeyFunctionThatThrowsOrGivesNoKeyIsAPermanentFailure() throws Exception {
    RoutingPublisher routing =
        RoutingPublisher.by(
                "tenant header",
                m -> {
                  if (m.aggregateId().equals("boom")) {
                    throw new IllegalStateException("no tenant");
                  }
                  return m.headers().get("tenant");
                })
            .route("acme", kafka)
            .build();
    OutboxMessage boom = message("order", "boom", "order.created");
    OutboxMessage none = message("order", "1", "order.created");

    List<PublishResult> results = routing.publish(List.of(boom, none));

    assertThat(results).allMatch(PublishResult::isPermanent);
    assertThat(results.get(0).reason())
        .startsWith("the routing publisher's router by tenant header failed:")
        .contains("no tenant");
    assertThat(results.get(1).reason()).contains("has no route for aggregate type 'order'");
    assertThat(kafka.batches).isEmpty();
  }

  @Test
  void otherwiseTakesTheEventsWithoutARoute() throws Exception {
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType().route("order", kafka).otherwise(sqs).build();
    OutboxMessage o1 = message("order", "1", "order.created");
    OutboxMessage r1 = message("refund", "r", "refund.requested");

    assertThat(routing.publish(List.of(o1, r1))).allMatch(PublishResult::isPublished);
    assertThat(kafka.sent()).containsExactly(o1);
    assertThat(sqs.sent()).containsExactly(r1);
  }

  @Test
  void aDelegateThatThrowsOrMiscountsFailsOnlyItsOwnEventsAsRetryable() throws Exception {
    Publisher throwing =
        new Fake("throwing") {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages) {
            throw new IllegalStateException("client closed");
          }
        };
    Publisher miscounting =
        new Fake("miscounting") {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages) {
            return List.of();
          }
        };
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType()
            .route("order", kafka)
            .route("invoice", throwing)
            .route("refund", miscounting)
            .build();

    List<PublishResult> results =
        routing.publish(
            List.of(
                message("order", "1", "order.created"),
                message("invoice", "9", "invoice.issued"),
                message("refund", "r", "refund.requested")));

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results.get(1).reason()).startsWith("publisher throwing failed:");
    assertThat(results.get(1).cause()).hasMessage("client closed");
    assertThat(results.get(2).status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results.get(2).reason())
        .isEqualTo("publisher miscounting must answer one result per message (1) but answered 0");
  }

  @Test
  void anInterruptedDelegateInterruptsTheWholeBatch() {
    Publisher interrupted =
        new Fake("interrupted") {
          @Override
          public List<PublishResult> publish(List<OutboxMessage> messages)
              throws InterruptedException {
            throw new InterruptedException("deadline");
          }
        };
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType().route("order", interrupted).build();

    assertThatThrownBy(() -> routing.publish(List.of(message("order", "1", "order.created"))))
        .isInstanceOf(InterruptedException.class)
        .hasMessage("deadline");
  }

  @Test
  void closeClosesEveryDelegateOnceEvenIfOneThrows() {
    Fake failing =
        new Fake("failing") {
          @Override
          public void close() {
            super.close();
            throw new IllegalStateException("close failed");
          }
        };
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType()
            .route("order", kafka)
            .route("invoice", failing)
            .route("credit", kafka)
            .otherwise(sqs)
            .build();

    assertThatThrownBy(routing::close).hasMessage("close failed");
    routing.close();

    assertThat(kafka.closed).hasValue(1);
    assertThat(failing.closed).hasValue(1);
    assertThat(sqs.closed).hasValue(1);
  }

  @Test
  void describesEveryRouteWithItsDelegatesDescription() {
    RoutingPublisher routing =
        RoutingPublisher.byAggregateType().route("order", kafka).route("invoice", sqs).build();
    RoutingPublisher fallback = RoutingPublisher.byEventType().otherwise(kafka).build();

    assertThat(routing.name()).isEqualTo("routing");
    assertThat(routing.describe())
        .isEqualTo(
            "routing{by aggregate type: order -> kafka{secret=****}, invoice -> sqs{secret=****}}");
    assertThat(fallback.describe())
        .isEqualTo("routing{by event type: otherwise -> kafka{secret=****}}");
  }

  @Test
  void refusesRoutesThatCannotWork() {
    assertThatThrownBy(() -> RoutingPublisher.byAggregateType().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "RoutingPublisher must have at least one route(...) or otherwise(...) but has none");
    assertThatThrownBy(
            () -> RoutingPublisher.byAggregateType().route("order", kafka).route("order", sqs))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key must be routed once but 'order' was routed twice");
    assertThatThrownBy(() -> RoutingPublisher.byAggregateType().route(" ", kafka))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key must not be blank but was ' '");
    assertThatThrownBy(() -> RoutingPublisher.by(" ", m -> "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("description must not be blank but was ' '");
    assertThatThrownBy(() -> RoutingPublisher.byAggregateType().route("order", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("publisher");
  }
}
