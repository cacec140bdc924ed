package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.Backoff;
import dev.txoutbox.DeadLetter;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ outage much longer than the relay's whole retry budget: in the middle of a drain,
 * {@link AmqpProxy} cuts the publisher's connection and refuses new ones for {@link #OUTAGE}. No
 * healthy event loses an attempt or becomes a dead letter, the relay stops claiming and only
 * probes, the log stays quiet, everything is delivered afterwards, and an unroutable event written
 * during the outage still becomes a dead letter.
 */
class RabbitBrokerOutageTest {

  private static final org.slf4j.Logger log = LoggerFactory.getLogger(RabbitBrokerOutageTest.class);

  private static final int EVENTS = 3_000;
  private static final int BATCH_SIZE = 50;
  private static final int WORKERS = 2;
  private static final int MAX_ATTEMPTS = 3;

  /** Retries after about 0.5 s and 1 s: three attempts are spent within {@link #RETRY_BUDGET}. */
  private static final Backoff RETRY =
      Backoff.exponential(Duration.ofMillis(500), Duration.ofSeconds(1));

  private static final Duration RETRY_BUDGET = Duration.ofMillis(1_500);

  /** A constant probe interval without jitter, so the probes an outage allows are countable. */
  private static final Duration PROBE_INTERVAL = Duration.ofMillis(400);

  private static final Duration OUTAGE = RETRY_BUDGET.multipliedBy(5);

  /** The publish call before which the broker goes away: mid-drain, other batches in flight. */
  private static final int CUT_AT_CALL = 10;

  /**
   * Lines at INFO and above from the relay, the publisher and the RabbitMQ client while the broker
   * is away: the publisher's "connection lost", the relay's "broker unavailable", the RabbitMQ
   * client's own warning of the broken connection, and the two lines of one reopening (see {@link
   * #IN_FLIGHT_REOPENINGS}).
   */
  private static final int MAX_LOG_LINES_DURING_OUTAGE = 5;

  /**
   * How often the relay's circuit may close and open again right after the cut. A batch already in
   * flight when the broker went away may have been partly confirmed; when it reports that after
   * another worker's batch opened the circuit, the relay takes it for an answered probe and closes
   * the circuit, until the next batch finds the broker unavailable again (one more WARN, one more
   * "available again after a few ms, 0 probes" INFO). Left to the relay's circuit to tell answers
   * that predate the outage from those that follow it; this test tolerates one such reopening.
   */
  private static final int IN_FLIGHT_REOPENINGS = 1;

  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(2);

  private static final List<String> LOGGERS = List.of("dev.txoutbox", "com.rabbitmq");

  private final String connectionName = "txoutbox-test-outage-" + UUID.randomUUID();
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private TestDatabase db;
  private DSLContext dsl;
  private Outbox outbox;
  private OutboxAdmin admin;
  private TestTopology topology;
  private AmqpProxy proxy;
  private CountingPublisher publisher;
  private OutboxRelay relay;

  @BeforeEach
  void setUp() throws Exception {
    db = TestDatabase.create("rabbit_outage");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
    topology = TestTopology.create("outage", "order.*");
    proxy = AmqpProxy.toTestBroker();
    publisher =
        new CountingPublisher(
            RabbitPublisher.builder()
                .connectionFactory(proxy.factory())
                .exchange(topology.exchange())
                .connectionName(connectionName)
                .unroutableIsPermanent(true)
                .sendTimeout(Duration.ofSeconds(5))
                .build());
    logs.start();
    LOGGERS.forEach(name -> ((Logger) LoggerFactory.getLogger(name)).addAppender(logs));
  }

  @AfterEach
  void tearDown() throws Exception {
    LOGGERS.forEach(name -> ((Logger) LoggerFactory.getLogger(name)).detachAppender(logs));
    if (relay != null) {
      relay.close(Duration.ofSeconds(10));
    }
    publisher.close();
    proxy.close();
    topology.close();
    db.close();
  }

  private Set<String> write(int count, String eventType) {
    Set<String> ids = new HashSet<>();
    for (int first = 0; first < count; first += 500) {
      List<OutboxEvent> events = new ArrayList<>();
      for (int i = first; i < Math.min(count, first + 500); i++) {
        events.add(OutboxEvent.of("order", "o-" + (i % 97), eventType, "{\"i\": " + i + "}"));
      }
      dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events))
          .forEach(id -> ids.add(id.toString()));
    }
    return ids;
  }

  /** Healthy events that lost an attempt or became dead letters. */
  private int healthyEventsCharged() {
    Condition charged =
        DSL.field("attempts", Integer.class).gt(0).or(DSL.field("dead_lettered_at").isNotNull());
    return dsl.fetchCount(
        DSL.table(DSL.name(db.schema(), "outbox_events")),
        DSL.field("event_type").eq("order.created").and(charged));
  }

  private List<String> linesFrom(int first) {
    List<String> lines = new ArrayList<>();
    List<ILoggingEvent> events = List.copyOf(logs.list);
    for (int i = first; i < events.size(); i++) {
      ILoggingEvent e = events.get(i);
      lines.add(e.getLevel() + " " + e.getLoggerName() + " - " + e.getFormattedMessage());
    }
    return lines;
  }

  @Test
  void outageLongerThanTheRetryBudgetCostsNoAttemptStopsClaimingAndStillDeadLettersTheUnroutable()
      throws Exception {
    Set<String> healthy = write(EVENTS, "order.created");
    CountDownLatch cut = new CountDownLatch(1);
    AtomicLong cutAt = new AtomicLong();
    AtomicInteger linesAtCut = new AtomicInteger();
    publisher.beforeCall(
        call -> {
          if (call == CUT_AT_CALL) {
            linesAtCut.set(logs.list.size());
            cutAt.set(System.nanoTime());
            proxy.refuse();
            cut.countDown();
          }
        });
    AtomicInteger outagesReported = new AtomicInteger();
    AtomicInteger recoveriesReported = new AtomicInteger();
    RelayListener circuit =
        new RelayListener() {
          @Override
          public void brokerUnavailable(String reason) {
            outagesReported.incrementAndGet();
          }

          @Override
          public void brokerAvailable(Duration outage) {
            recoveriesReported.incrementAndGet();
          }
        };
    relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .listener(circuit)
            .config(
                RelayConfig.builder()
                    .name("outage")
                    .batchSize(BATCH_SIZE)
                    .workers(WORKERS)
                    .maxAttempts(MAX_ATTEMPTS)
                    .backoff(RETRY)
                    .brokerProbeBackoff(new Backoff(PROBE_INTERVAL, PROBE_INTERVAL, 1.0, 0.0))
                    .build())
            .build();
    relay.start();

    assertThat(cut.await(1, TimeUnit.MINUTES)).isTrue();
    Set<String> unroutable = write(1, "invoice.created"); // no queue is bound for invoice.*
    // The outage lasts OUTAGE, and at least until the relay has probed a few times.
    await()
        .atMost(OUTAGE.multipliedBy(4))
        .until(
            () ->
                System.nanoTime() - cutAt.get() >= OUTAGE.toNanos()
                    && publisher.calls() >= CUT_AT_CALL + WORKERS + 3);
    int callsDuringOutage = publisher.calls() - (CUT_AT_CALL - 1);
    List<Integer> sizesDuringOutage =
        publisher.batchSizes().subList(CUT_AT_CALL - 1, CUT_AT_CALL - 1 + callsDuringOutage);
    Duration outage = Duration.ofNanos(System.nanoTime() - cutAt.get());
    List<String> outageLines = linesFrom(linesAtCut.get());
    int chargedDuringOutage = healthyEventsCharged();
    long deadDuringOutage = admin.deadLetterCount();
    proxy.accept();

    await()
        .atMost(DRAIN_TIMEOUT)
        .untilAsserted(() -> assertThat(topology.receivedIds()).containsAll(healthy));
    await()
        .atMost(DRAIN_TIMEOUT)
        .until(() -> admin.pendingCount() == 0 && admin.deadLetterCount() == 1);
    await().atMost(DRAIN_TIMEOUT).until(() -> recoveriesReported.get() == outagesReported.get());
    // Each worker may publish one batch claimed before the circuit opened, twice if the circuit
    // reopened (see IN_FLIGHT_REOPENINGS); then only probes, one per probe interval at most.
    long inFlight = (long) WORKERS * (1 + IN_FLIGHT_REOPENINGS);
    long allowedCalls = inFlight + outage.toMillis() / PROBE_INTERVAL.toMillis() + 1;
    log.info(
        "RabbitMQ outage: {} healthy events, outage {} ms (retry budget {} ms), {} publish calls"
            + " during it (bound {}, sizes {}), {} log lines during it (bound {}): {}; {} publish"
            + " calls in all, {} deliveries of {} distinct events",
        EVENTS,
        outage.toMillis(),
        RETRY_BUDGET.toMillis(),
        callsDuringOutage,
        allowedCalls,
        sizesDuringOutage,
        outageLines.size(),
        MAX_LOG_LINES_DURING_OUTAGE,
        outageLines,
        publisher.calls(),
        topology.deliveryCount(),
        topology.receivedIds().size());

    // The outage cost healthy events nothing, during it and after it.
    assertThat(chargedDuringOutage).isZero();
    assertThat(deadDuringOutage).isZero();
    assertThat(healthyEventsCharged()).isZero();
    assertThat(publisher.outcomes(Status.BROKER_UNAVAILABLE)).isPositive();
    // The relay stopped claiming: the batches in flight when the broker went, then small probes.
    assertThat(callsDuringOutage).isBetween(WORKERS + 3, (int) allowedCalls);
    assertThat(sizesDuringOutage.subList((int) inFlight, sizesDuringOutage.size()))
        .allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(10));
    assertThat(outagesReported.get()).isBetween(1, 1 + IN_FLIGHT_REOPENINGS);
    assertThat(outageLines).hasSizeLessThanOrEqualTo(MAX_LOG_LINES_DURING_OUTAGE);
    // Everything is delivered; the unroutable event is a dead letter after one attempt.
    assertThat(topology.receivedIds()).hasSize(EVENTS);
    List<DeadLetter> dead = admin.deadLetters(null, 10);
    assertThat(dead)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(unroutable).containsExactly(d.id().toString());
              assertThat(d.attempts()).isEqualTo(1);
              assertThat(d.lastError()).contains("312", "NO_ROUTE");
            });
  }
}
