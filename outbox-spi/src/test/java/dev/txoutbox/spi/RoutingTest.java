package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.PublishResult.Status;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The one routing rule: a router that cannot name a destination makes the event permanent. */
class RoutingTest {

  private static final OutboxMessage ORDER =
      OutboxMessage.builder()
          .id(UUID.randomUUID())
          .sequence(1)
          .aggregateType("order")
          .aggregateId("o-1")
          .eventType("order.created")
          .payload("{}")
          .createdAt(Instant.EPOCH)
          .attempt(1)
          .build();

  @Test
  void aNamedDestinationIsRouted() {
    Routing<String> r = Routing.route(ORDER, "test router", m -> Optional.of("orders"));

    assertThat(r.routed()).isTrue();
    assertThat(r.destination()).isEqualTo("orders");
    assertThatThrownBy(r::failure)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("orders");
  }

  @Test
  void noDestinationIsPermanentAndNamesTheTypes() {
    Routing<String> r = Routing.route(ORDER, "test router", m -> Optional.empty());

    assertThat(r.routed()).isFalse();
    assertThat(r.failure().status()).isEqualTo(Status.PERMANENT_FAILURE);
    assertThat(r.failure().reason())
        .isEqualTo(
            "the test router has no route for aggregate type 'order' (event type"
                + " 'order.created')");
    assertThatThrownBy(r::destination).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aBlankDestinationIsNoDestination() {
    assertThat(Routing.route(ORDER, "test router", m -> Optional.of(" ")).routed()).isFalse();
  }

  @Test
  void aRouterThatThrowsOrReturnsNullIsPermanent() {
    IllegalStateException boom = new IllegalStateException("boom");
    Routing<String> threw =
        Routing.route(
            ORDER,
            "test router",
            m -> {
              throw boom;
            });
    Routing<String> nothing = Routing.route(ORDER, "test router", m -> null);

    assertThat(threw.failure().status()).isEqualTo(Status.PERMANENT_FAILURE);
    assertThat(threw.failure().reason()).startsWith("the test router failed: ").contains("boom");
    assertThat(threw.failure().cause()).isSameAs(boom);
    assertThat(nothing.failure().status()).isEqualTo(Status.PERMANENT_FAILURE);
    assertThat(nothing.failure().reason()).contains("returned null");
  }
}
