package dev.txoutbox.kafka.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.kafka.testing.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The broker goes away while the application keeps writing events, then comes back: nothing is
 * lost, nothing becomes a dead letter, and the failures in between were retryable attempts. This
 * class has a broker of its own, since it stops it.
 */
class KafkaBrokerOutageTest {

  private static final String TOPIC = "outage.payment";

  private static EmbeddedKafka kafka;
  private final AtomicInteger written = new AtomicInteger();

  @BeforeAll
  static void startBroker() {
    kafka = EmbeddedKafka.builder().start();
    kafka.createTopic(TOPIC, 3, Map.of());
  }

  @AfterAll
  static void closeBroker() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void eventsWrittenWhileTheBrokerIsDownArriveWhenItIsBackAndTheOutboxDrains() {
    RelayFixture.CountingListener listener = new RelayFixture.CountingListener();
    List<UUID> ids = Collections.synchronizedList(new ArrayList<>());
    try (RelayFixture fixture = new RelayFixture("kafka_outage");
        KafkaPublisher publisher =
            KafkaPublisher.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix("outage.")
                .sendTimeout(Duration.ofSeconds(2))
                .build();
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(fixture.db.dataSource())
                .schema(fixture.db.schema())
                .publisher(publisher)
                .listener(listener)
                .config(
                    RelayConfig.builder()
                        .batchSize(50)
                        .maxPollInterval(Duration.ofMillis(200))
                        .maxAttempts(1000)
                        .backoff(
                            Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(500)))
                        .build())
                .build()) {
      relay.start();
      ids.addAll(fixture.write(events(50)));
      await().atMost(RelayFixture.patience()).until(() -> listener.published.get() == 50);

      kafka.stop();
      // Keep writing while the relay fails against the missing broker.
      await()
          .atMost(RelayFixture.patience())
          .until(
              () -> {
                ids.addAll(fixture.write(events(10)));
                return listener.retries.get() >= 20;
              });
      kafka.start();
      ids.addAll(fixture.write(events(50)));

      await().atMost(RelayFixture.patience()).until(() -> fixture.admin.pendingCount() == 0);
      assertThat(fixture.admin.deadLetterCount()).isZero();
      assertThat(listener.deadLetters).hasValue(0);
      assertThat(listener.retries.get()).isGreaterThanOrEqualTo(20);
      int retriedRows =
          fixture.dsl.fetchCount(
              DSL.table(DSL.name(fixture.db.schema(), "outbox_events")),
              DSL.field(DSL.name("attempts"), Integer.class).gt(0));
      assertThat(retriedRows).isPositive();
    }

    Set<String> arrived =
        kafka.readAll(TOPIC, RelayFixture.patience()).stream()
            .map(RelayFixture::eventId)
            .collect(Collectors.toSet());
    assertThat(arrived)
        .isEqualTo(ids.stream().map(UUID::toString).collect(Collectors.toSet()))
        .hasSize(written.get());
  }

  private List<OutboxEvent> events(int count) {
    return IntStream.range(0, count)
        .mapToObj(
            i -> {
              int n = written.incrementAndGet();
              return OutboxEvent.of(
                  "payment", "payment-" + (n % 17), "payment.captured", "{\"n\":" + n + "}");
            })
        .collect(Collectors.toList());
  }
}
