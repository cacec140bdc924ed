package dev.txoutbox.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.TestMessages;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The relay's meters, fed by hand and read back, over an admin that counts its calls. */
class RelayMetersTest {

  private static final OutboxStatus STATUS =
      new OutboxStatus(7, 5, 2, Optional.of(Duration.ofMinutes(3)), 40);
  private static final Duration HOUR = Duration.ofHours(1);

  private final List<RelayMeters> opened = new ArrayList<>();

  @AfterEach
  void closeAll() {
    opened.forEach(RelayMeters::close);
  }

  private RelayMeters metrics(MeterRegistry registry, CountingAdmin admin, Duration interval) {
    return metrics(
        OutboxMetrics.builder(registry).refreshInterval(interval).build(), "orders", admin);
  }

  private RelayMeters metrics(OutboxMetrics settings, String relayName, CountingAdmin admin) {
    RelayMeters m = RelayMeters.register(settings, relayName, admin);
    opened.add(m);
    return m;
  }

  private static OutboxMessage message(String eventType, int attempt) {
    return TestMessages.message().eventType(eventType).attempt(attempt).build();
  }

  /** Three published, three retries, two dead letters, two batches and one failed cycle. */
  private static void reportKnownSequence(RelayMeters m) {
    PublishResult no = PublishResult.retryable("broker said no");
    for (int i = 0; i < 3; i++) {
      m.published(message("order.created", 1));
    }
    m.willRetry(message("order.created", 1), no, Duration.ofSeconds(1));
    m.willRetry(message("order.created", 2), no, Duration.ofSeconds(2));
    m.willRetry(message("payment.taken", 1), no, Duration.ofSeconds(1));
    m.deadLettered(message("order.created", 3), no);
    m.deadLettered(message("payment.taken", 1), PublishResult.permanent("too large"));
    m.batchCompleted(5, 3, 2, Duration.ofMillis(40));
    m.batchCompleted(3, 0, 3, Duration.ofMillis(60));
    m.cycleFailed(new IllegalStateException("database down"));
  }

  private static double counter(MeterRegistry r, String name, String... tags) {
    return r.get(name).tag("relay", "orders").tags(tags).counter().count();
  }

  private static double gauge(MeterRegistry r, String name) {
    return r.get(name).tag("relay", "orders").gauge().value();
  }

  @Test
  void countsPublishedFailedAndDeadLetteredEventsPerEventType() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    reportKnownSequence(metrics(registry, CountingAdmin.fixed(STATUS), HOUR));

    assertThat(counter(registry, "outbox.events.published")).isEqualTo(3);
    assertThat(counter(registry, "outbox.events.failed", "event_type", "order.created"))
        .isEqualTo(3);
    assertThat(counter(registry, "outbox.events.failed", "event_type", "payment.taken"))
        .isEqualTo(2);
    assertThat(counter(registry, "outbox.events.dead.lettered", "event_type", "order.created"))
        .isEqualTo(1);
    assertThat(counter(registry, "outbox.events.dead.lettered", "event_type", "payment.taken"))
        .isEqualTo(1);
    assertThat(counter(registry, "outbox.relay.cycle.failures")).isEqualTo(1);
    Timer batches = registry.get("outbox.batch.duration").tag("relay", "orders").timer();
    assertThat(batches.count()).isEqualTo(2);
    assertThat(batches.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(100);
    assertThat(batches.max(TimeUnit.MILLISECONDS)).isEqualTo(60);
  }

  @Test
  void foldsEventTypesBeyondTheCapIntoOther() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ListAppender<ILoggingEvent> warnings = new ListAppender<>();
    warnings.start();
    Logger logger = (Logger) LoggerFactory.getLogger(EventTypeTags.class);
    logger.addAppender(warnings);
    try {
      RelayMeters m =
          metrics(
              OutboxMetrics.builder(registry).refreshInterval(HOUR).maxEventTypes(3).build(),
              "orders",
              CountingAdmin.fixed(STATUS));
      PublishResult no = PublishResult.permanent("too large");
      for (int i = 0; i < 50; i++) {
        m.deadLettered(message("type-" + (i % 10), 1), no);
      }

      Set<String> failedTags =
          registry.find("outbox.events.failed").counters().stream()
              .map(c -> c.getId().getTag("event_type"))
              .collect(Collectors.toSet());
      assertThat(failedTags).containsExactlyInAnyOrder("type-0", "type-1", "type-2", "other");
      assertThat(counter(registry, "outbox.events.failed", "event_type", "type-0")).isEqualTo(5);
      assertThat(counter(registry, "outbox.events.failed", "event_type", "other")).isEqualTo(35);
      assertThat(counter(registry, "outbox.events.dead.lettered", "event_type", "other"))
          .isEqualTo(35);
      assertThat(registry.find("outbox.events.dead.lettered").counters()).hasSize(4);
      assertThat(warnings.list)
          .singleElement()
          .extracting(ILoggingEvent::getFormattedMessage)
          .asString()
          .contains("more than 3 event types", "event_type=\"other\"");
    } finally {
      logger.detachAppender(warnings);
    }
    assertThatThrownBy(() -> OutboxMetrics.builder(registry).maxEventTypes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxEventTypes must be between 1 and 10000 but was 0");
  }

  @Test
  void theEventTypeCapDefaultsTo200() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMeters m = metrics(registry, CountingAdmin.fixed(STATUS), HOUR);
    for (int i = 0; i < 250; i++) {
      m.willRetry(message("type-" + i, 1), PublishResult.retryable("no"), Duration.ofSeconds(1));
    }

    assertThat(registry.find("outbox.events.failed").counters()).hasSize(201);
    assertThat(counter(registry, "outbox.events.failed", "event_type", "other")).isEqualTo(50);
  }

  @Test
  void everyMeterHasADescriptionAndTheRelayTag() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    reportKnownSequence(metrics(registry, CountingAdmin.fixed(STATUS), HOUR));

    assertThat(registry.getMeters()).hasSize(12);
    for (Meter meter : registry.getMeters()) {
      assertThat(meter.getId().getDescription()).as(meter.getId().getName()).isNotBlank();
      assertThat(meter.getId().getTag("relay")).as(meter.getId().getName()).isEqualTo("orders");
    }
  }

  @Test
  void brokerAvailabilityFollowsTheRelaysOutageReports() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMeters m = metrics(registry, CountingAdmin.fixed(STATUS), HOUR);
    assertThat(registry.get("outbox.broker.available").gauge().value()).isEqualTo(1.0);

    m.brokerUnavailable("connection refused");
    assertThat(registry.get("outbox.broker.available").gauge().value()).isZero();
    m.brokerAvailable(Duration.ofSeconds(42));
    m.brokerUnavailable("connection refused");

    assertThat(registry.get("outbox.broker.available").gauge().value()).isZero();
    assertThat(registry.get("outbox.broker.outages").counter().count()).isEqualTo(2.0);
    m.brokerAvailable(Duration.ofSeconds(1));
    assertThat(registry.get("outbox.broker.available").gauge().value()).isEqualTo(1.0);
  }

  @Test
  void prometheusRendersTheDocumentedNames() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RelayMeters m = metrics(registry, CountingAdmin.fixed(STATUS), HOUR);
    reportKnownSequence(m);
    m.refresh();

    String scrape = registry.scrape();

    Set<String> families =
        Arrays.stream(scrape.split("\n"))
            .filter(line -> line.startsWith("# TYPE "))
            .map(line -> line.substring("# TYPE ".length()))
            .collect(Collectors.toSet());
    assertThat(families)
        .containsExactlyInAnyOrder(
            "outbox_events_published_total counter",
            "outbox_events_failed_total counter",
            "outbox_events_dead_lettered_total counter",
            "outbox_relay_cycle_failures_total counter",
            "outbox_batch_duration_seconds histogram",
            "outbox_batch_duration_seconds_max gauge",
            "outbox_events_pending gauge",
            "outbox_dead_letters gauge",
            "outbox_oldest_pending_age_seconds gauge",
            "outbox_broker_available gauge",
            "outbox_broker_outages_total counter");
    assertThat(scrape)
        .contains("outbox_events_published_total{relay=\"orders\"} 3.0")
        .contains("outbox_events_failed_total{event_type=\"order.created\",relay=\"orders\"} 3.0")
        .contains("outbox_events_failed_total{event_type=\"payment.taken\",relay=\"orders\"} 2.0")
        .contains(
            "outbox_events_dead_lettered_total{event_type=\"payment.taken\",relay=\"orders\"} 1.0")
        .contains("outbox_batch_duration_seconds_count{relay=\"orders\"} 2")
        .contains("outbox_batch_duration_seconds_bucket{relay=\"orders\",le=\"+Inf\"} 2")
        .contains("outbox_events_pending{relay=\"orders\"} 7.0")
        .contains("outbox_dead_letters{relay=\"orders\"} 2.0")
        .contains("outbox_oldest_pending_age_seconds{relay=\"orders\"} 180.0")
        .contains("# HELP outbox_events_pending Events waiting to be published");
  }

  @Test
  void backlogGaugesReadNaNUntilTheFirstRefreshThenItsValues() throws Exception {
    CountDownLatch answer = new CountDownLatch(1);
    CountingAdmin admin =
        new CountingAdmin(
            () -> {
              try {
                answer.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return STATUS;
            });
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    metrics(registry, admin, HOUR);
    await().until(() -> admin.statusCalls.get() == 1);

    assertThat(gauge(registry, "outbox.events.pending")).isNaN();
    assertThat(gauge(registry, "outbox.dead.letters")).isNaN();
    assertThat(gauge(registry, "outbox.oldest.pending.age")).isNaN();

    answer.countDown();
    await().until(() -> gauge(registry, "outbox.events.pending") == 7.0);
    assertThat(gauge(registry, "outbox.dead.letters")).isEqualTo(2.0);
    assertThat(gauge(registry, "outbox.oldest.pending.age")).isEqualTo(180.0);
  }

  @Test
  void oldestPendingAgeIsZeroWhenNothingIsPending() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMeters m =
        metrics(
            registry, CountingAdmin.fixed(new OutboxStatus(0, 0, 0, Optional.empty(), 0)), HOUR);
    m.refresh();

    assertThat(gauge(registry, "outbox.oldest.pending.age")).isZero();
    assertThat(gauge(registry, "outbox.events.pending")).isZero();
  }

  @Test
  void scrapesReadTheCacheAndOnlyTheRefreshThreadQueries() {
    CountingAdmin admin = CountingAdmin.fixed(STATUS);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    metrics(registry, admin, HOUR);
    await().until(() -> gauge(registry, "outbox.events.pending") == 7.0);

    for (int i = 0; i < 100; i++) {
      assertThat(registry.scrape()).contains("outbox_events_pending{relay=\"orders\"} 7.0");
      assertThat(gauge(registry, "outbox.dead.letters")).isEqualTo(2.0);
    }

    assertThat(admin.statusCalls).hasValue(1);
    assertThat(admin.callerThreads).containsExactly("outbox-relay-orders-metrics");
    assertThat(admin.callerDaemon).containsExactly(true);
  }

  @Test
  void aFailedRefreshIsLoggedOnceAndKeepsTheLastValuesUntilOneWorks() {
    Logger logger = (Logger) LoggerFactory.getLogger(BacklogGauges.class);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    logger.addAppender(logs);
    try {
      AtomicStatus status = new AtomicStatus(STATUS);
      CountingAdmin admin = new CountingAdmin(status::get);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      metrics(registry, admin, Duration.ofMillis(5));
      await().until(() -> gauge(registry, "outbox.events.pending") == 7.0);

      admin.failWith(new IllegalStateException("connection refused"));
      status.set(new OutboxStatus(9, 9, 9, Optional.of(Duration.ofMinutes(9)), 0));
      await().until(() -> admin.failedCalls.get() >= 3);

      assertThat(gauge(registry, "outbox.events.pending")).isEqualTo(7.0);
      assertThat(gauge(registry, "outbox.dead.letters")).isEqualTo(2.0);
      assertThat(gauge(registry, "outbox.oldest.pending.age")).isEqualTo(180.0);
      assertThat(logs.list)
          .filteredOn(e -> e.getLevel() == Level.WARN)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getFormattedMessage())
                    .contains("relay orders")
                    .contains("connection refused");
                assertThat(e.getThrowableProxy()).isNotNull();
              });

      admin.failWith(null);
      await().until(() -> gauge(registry, "outbox.events.pending") == 9.0);
      await()
          .until(
              () ->
                  logs.list.stream()
                      .anyMatch(
                          e ->
                              e.getLevel() == Level.INFO
                                  && e.getFormattedMessage().contains("works again")));
    } finally {
      logger.detachAppender(logs);
    }
  }

  /** A status the test changes while the refresh thread reads it. */
  private static final class AtomicStatus {
    private volatile OutboxStatus status;

    AtomicStatus(OutboxStatus status) {
      this.status = status;
    }

    OutboxStatus get() {
      return status;
    }

    void set(OutboxStatus status) {
      this.status = status;
    }
  }

  @Test
  void closeRemovesEveryMeterAndStopsTheRefreshThread() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountingAdmin admin = CountingAdmin.fixed(STATUS);
    RelayMeters m = metrics(registry, admin, Duration.ofMillis(5));
    reportKnownSequence(m);
    await().until(() -> admin.statusCalls.get() >= 1);
    assertThat(registry.getMeters()).isNotEmpty();

    m.close();

    assertThat(registry.getMeters()).isEmpty();
    await().until(() -> !refreshThreadAlive("outbox-relay-orders-metrics"));
    int calls = admin.statusCalls.get();
    reportKnownSequence(m);
    assertThat(registry.getMeters()).as("nothing is registered after close").isEmpty();
    assertThat(admin.statusCalls).hasValue(calls);
    m.close(); // idempotent
    assertThatThrownBy(m::refresh)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  private static boolean refreshThreadAlive(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(name) && t.isAlive());
  }

  @Test
  void closingOneRelaysMetricsLeavesAnotherRelaysMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMeters orders = metrics(registry, CountingAdmin.fixed(STATUS), HOUR);
    RelayMeters billing =
        metrics(
            OutboxMetrics.builder(registry).refreshInterval(HOUR).build(),
            "billing",
            CountingAdmin.fixed(STATUS));
    reportKnownSequence(orders);
    reportKnownSequence(billing);

    orders.close();

    assertThat(registry.getMeters())
        .isNotEmpty()
        .allSatisfy(meter -> assertThat(meter.getId().getTag("relay")).isEqualTo("billing"));
  }

  @Test
  void aSecondInstanceForTheSameRelayIsRejectedUntilTheFirstIsClosed() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayMeters first = metrics(registry, CountingAdmin.fixed(STATUS), HOUR);

    assertThatThrownBy(() -> metrics(registry, CountingAdmin.fixed(STATUS), HOUR))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'orders'");

    first.close();
    metrics(registry, CountingAdmin.fixed(STATUS), HOUR);
  }

  @Test
  void settingsRejectBadOptionsNamingThem() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    assertThatThrownBy(() -> OutboxMetrics.builder(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("registry");
    assertThatThrownBy(() -> OutboxMetrics.builder(registry).refreshInterval(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("refreshInterval");
    assertThatThrownBy(() -> OutboxMetrics.builder(registry).refreshInterval(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("refreshInterval must be positive but was PT0S");
    assertThatThrownBy(() -> OutboxMetrics.builder(registry).maxEventTypes(10_001))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxEventTypes must be between 1 and 10000 but was 10001");
    assertThat(OutboxMetrics.in(registry))
        .satisfies(
            m -> {
              assertThat(m.registry()).isSameAs(registry);
              assertThat(m.refreshInterval()).isEqualTo(OutboxMetrics.DEFAULT_REFRESH_INTERVAL);
              assertThat(m.maxEventTypes()).isEqualTo(OutboxMetrics.DEFAULT_MAX_EVENT_TYPES);
            });
    assertThat(registry.getMeters()).as("settings register nothing").isEmpty();
  }
}
