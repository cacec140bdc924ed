package dev.txoutbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link OutboxMetrics#bindRelay}: the outbox meters of a relay that is not an OutboxRelay. */
class BindRelayTest {

  private static TestDatabase db;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("bind_relay");
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @Test
  void theBindingCountsWhatItIsToldRefusesATwinAndRemovesEveryMeterOnClose() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxMetrics metrics = OutboxMetrics.in(registry);
    OutboxAdmin admin = OutboxAdmin.create(db.dataSource(), db.schema());
    OutboxMessage message =
        new OutboxMessage(
            UUID.randomUUID(),
            1,
            "order",
            "o-1",
            "order.created",
            "{}",
            Map.of(),
            Instant.now(),
            1);

    RelayMeterBinding binding = metrics.bindRelay("other", admin);
    binding.published(message);
    binding.published(message);
    binding.deadLettered(message, PublishResult.permanent("refused"));
    binding.brokerUnavailable("down");

    assertThat(registry.get("outbox.events.published").tag("relay", "other").counter().count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("outbox.events.dead.lettered")
                .tag("relay", "other")
                .tag("event_type", "order.created")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(registry.get("outbox.broker.available").tag("relay", "other").gauge().value())
        .isZero();
    assertThatThrownBy(() -> metrics.bindRelay("other", admin))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'other' already has outbox meters");

    binding.close();
    binding.close();
    assertThat(registry.getMeters()).isEmpty();
    binding.brokerAvailable(Duration.ofSeconds(1)); // ignored, no meter comes back
    assertThat(registry.getMeters()).isEmpty();
  }
}
