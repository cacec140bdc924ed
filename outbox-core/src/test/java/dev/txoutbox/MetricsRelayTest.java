package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestClock;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.KeyValuePair;

/**
 * A relay driven by hand through a known sequence of successes, retries and dead letters, read back
 * through the meters it registers itself ({@link OutboxRelay.Builder#metrics(OutboxMetrics)}) and
 * through its log lines.
 */
class MetricsRelayTest {

  private static TestDatabase db;
  private static DSLContext dsl;

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger relayLogger = (Logger) LoggerFactory.getLogger("dev.txoutbox.relay");
  private TestClock clock;
  private OutboxRelay relay;
  private List<UUID> poison;
  private UUID tooLarge;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("metrics");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  /**
   * Three healthy {@code order.created} events, two {@code order.shipped} the broker refuses twice
   * (maxAttempts 2) and one {@code payment.taken} it rejects for good.
   */
  @BeforeEach
  void relayAndEvents() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    logs.start();
    relayLogger.addAppender(logs);
    clock = TestClock.at(Instant.now().truncatedTo(ChronoUnit.MILLIS));
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    write(outbox, 3, "o-ok", "order.created");
    // Two aggregates: after a failure the relay does not attempt later events of its aggregate.
    poison = new ArrayList<>(write(outbox, 1, "o-poison-1", "order.shipped"));
    poison.addAll(write(outbox, 1, "o-poison-2", "order.shipped"));
    tooLarge = write(outbox, 1, "p-big", "payment.taken").get(0);
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    switch (m.eventType()) {
                      case "order.shipped" -> PublishResult.retryable("broker busy");
                      case "payment.taken" -> PublishResult.permanent("record too large");
                      default -> PublishResult.published();
                    });
    relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .config(
                RelayConfig.builder()
                    .name("orders")
                    .maxAttempts(2)
                    .backoff(
                        Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(1))
                            .withJitter(0))
                    .build())
            .clock(clock)
            // Refreshed often: the test waits for the gauges to show each cycle's outcome.
            .metrics(OutboxMetrics.builder(registry).refreshInterval(Duration.ofMillis(20)).build())
            .build();
  }

  @AfterEach
  void close() {
    relayLogger.detachAppender(logs);
    relay.close(Duration.ofSeconds(5));
    assertThat(registry.getMeters()).as("the relay's close() removes its meters").isEmpty();
  }

  private static List<UUID> write(Outbox outbox, int n, String aggregateId, String eventType) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(OutboxEvent.of("order", aggregateId, eventType, "{\"i\":" + i + "}"));
    }
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private double counter(String name, String... tags) {
    return registry.get(name).tag("relay", "orders").tags(tags).counter().count();
  }

  private double gauge(String name) {
    return registry.get(name).tag("relay", "orders").gauge().value();
  }

  @Test
  void metricsFollowAKnownSequenceOfSuccessesRetriesAndDeadLetters() throws Exception {
    assertThat(relay.runOnce()).isEqualTo(6);
    await().until(() -> gauge("outbox.events.pending") == 2 && gauge("outbox.dead.letters") == 1);

    assertThat(counter("outbox.events.published")).isEqualTo(3);
    assertThat(counter("outbox.events.failed", "event_type", "order.shipped")).isEqualTo(2);
    assertThat(counter("outbox.events.failed", "event_type", "payment.taken")).isEqualTo(1);
    assertThat(counter("outbox.events.dead.lettered", "event_type", "payment.taken")).isEqualTo(1);
    assertThat(
            registry
                .find("outbox.events.dead.lettered")
                .tag("event_type", "order.shipped")
                .counter())
        .as("no dead letter of order.shipped yet")
        .isNull();
    assertThat(gauge("outbox.oldest.pending.age")).isNotNaN().isGreaterThanOrEqualTo(0);

    clock.advance(Duration.ofSeconds(1));
    assertThat(relay.runOnce()).isEqualTo(2);
    await().until(() -> gauge("outbox.events.pending") == 0 && gauge("outbox.dead.letters") == 3);

    assertThat(counter("outbox.events.published")).isEqualTo(3);
    assertThat(counter("outbox.events.failed", "event_type", "order.shipped")).isEqualTo(4);
    assertThat(counter("outbox.events.failed", "event_type", "payment.taken")).isEqualTo(1);
    assertThat(counter("outbox.events.dead.lettered", "event_type", "order.shipped")).isEqualTo(2);
    assertThat(counter("outbox.events.dead.lettered", "event_type", "payment.taken")).isEqualTo(1);
    assertThat(registry.get("outbox.batch.duration").tag("relay", "orders").timer().count())
        .isEqualTo(2);
    assertThat(counter("outbox.relay.cycle.failures")).isZero();
    assertThat(gauge("outbox.oldest.pending.age")).isZero();
  }

  @Test
  void retryIsLoggedAtWarnAndDeadLetterAtErrorWithEventKeyValues() throws Exception {
    relay.runOnce();
    clock.advance(Duration.ofSeconds(1));
    relay.runOnce();

    List<ILoggingEvent> aboutEvents =
        logs.list.stream().filter(e -> keyValues(e).containsKey("event_id")).toList();
    assertThat(aboutEvents)
        .extracting(e -> e.getLevel() + " " + keyValues(e).get("event_id"))
        .containsExactlyInAnyOrder(
            "WARN " + poison.get(0),
            "WARN " + poison.get(1),
            "ERROR " + tooLarge,
            "ERROR " + poison.get(0),
            "ERROR " + poison.get(1));
    for (ILoggingEvent e : aboutEvents) {
      Map<String, Object> kv = keyValues(e);
      assertThat(kv)
          .containsOnlyKeys("relay", "event_id", "event_type", "aggregate_id", "attempt")
          .containsEntry("relay", "orders");
      if (kv.get("event_id").equals(tooLarge)) {
        assertThat(kv).containsEntry("event_type", "payment.taken");
        assertThat(kv).containsEntry("aggregate_id", "p-big");
        assertThat(kv).containsEntry("attempt", 1);
      } else {
        assertThat(kv).containsEntry("event_type", "order.shipped");
        assertThat((String) kv.get("aggregate_id")).startsWith("o-poison-");
        assertThat(kv).containsEntry("attempt", e.getLevel() == Level.WARN ? 1 : 2);
      }
    }
  }

  private static Map<String, Object> keyValues(ILoggingEvent e) {
    List<KeyValuePair> pairs = e.getKeyValuePairs();
    if (pairs == null) {
      return Map.of();
    }
    return pairs.stream().collect(Collectors.toMap(p -> p.key, p -> p.value));
  }
}
