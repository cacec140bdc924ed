package dev.txoutbox.sqs;

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
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.testing.TestDatabase;
import dev.txoutbox.testing.sqs.ElasticMq;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * ElasticMQ's HTTP server stopped in the middle of a drain, for much longer than the relay's whole
 * retry budget, then started again with its queues: no healthy event loses an attempt or becomes a
 * dead letter, the relay only probes meanwhile, everything is delivered afterwards, and a message
 * SQS refuses as the sender's fault, written during the outage, still becomes a dead letter.
 */
class SqsBrokerOutageTest {

  private static final org.slf4j.Logger log = LoggerFactory.getLogger(SqsBrokerOutageTest.class);

  private static final int EVENTS = 2_000;
  private static final int BATCH_SIZE = 50;
  private static final int REQUESTS_PER_BATCH = BATCH_SIZE / 10;
  private static final int WORKERS = 2;

  /** Three attempts, retried after about 0.5 s and 1 s: spent within {@link #RETRY_BUDGET}. */
  private static final Backoff RETRY =
      Backoff.exponential(Duration.ofMillis(500), Duration.ofSeconds(1));

  private static final Duration RETRY_BUDGET = Duration.ofMillis(1_500);
  private static final Duration PROBE_INTERVAL = Duration.ofMillis(400);
  private static final Duration OUTAGE = RETRY_BUDGET.multipliedBy(4);

  /** The SendMessageBatch request before which the server stops: mid-drain, others in flight. */
  private static final int CUT_AT_REQUEST = 30;

  /**
   * How often the relay's circuit may close and open again right after the cut: a batch in flight
   * when SQS went away, partly acknowledged, may report after another worker's batch opened it.
   */
  private static final int IN_FLIGHT_REOPENINGS = 1;

  /** Relay and publisher lines while SQS is away: "unavailable", and one reopening's two lines. */
  private static final int MAX_LOG_LINES_DURING_OUTAGE = 4;

  private static final String REFUSED_MARKER = "refused-by-sqs";
  private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(2);
  private static final List<String> LOGGERS =
      List.of("dev.txoutbox", "software.amazon.awssdk", "io.netty");

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private ElasticMq sqs;
  private TestDatabase db;
  private DSLContext dsl;
  private Outbox outbox;
  private OutboxAdmin admin;
  private OutboxRelay relay;
  private SqsPublisher publisher;

  @BeforeEach
  void setUp() {
    sqs = ElasticMq.start();
    db = TestDatabase.create("sqs_outage");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    outbox = Outbox.builder().schema(db.schema()).build();
    admin = OutboxAdmin.create(db.dataSource(), db.schema());
    logs.start();
    LOGGERS.forEach(name -> ((Logger) LoggerFactory.getLogger(name)).addAppender(logs));
  }

  @AfterEach
  void tearDown() {
    LOGGERS.forEach(name -> ((Logger) LoggerFactory.getLogger(name)).detachAppender(logs));
    try {
      if (relay != null) {
        relay.close(Duration.ofSeconds(10));
      }
      if (publisher != null) {
        publisher.close();
      }
      db.close();
    } finally {
      sqs.close();
    }
  }

  private List<String> write(int count, String payloadText) {
    List<OutboxEvent> events = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      String payload = "{\"n\":" + n + ",\"text\":\"" + payloadText + "\"}";
      events.add(OutboxEvent.of("order", "agg-" + (n % 50), "order.happened", payload));
    }
    return dsl.transactionResult(tx -> outbox.recordAll(tx.dsl(), events)).stream()
        .map(UUID::toString)
        .toList();
  }

  private int eventsCharged() {
    return dsl.fetchCount(
        DSL.table(DSL.name(db.schema(), "outbox_events")),
        DSL.field("attempts", Integer.class)
            .gt(0)
            .or(DSL.field("dead_lettered_at").isNotNull())
            .and(DSL.field("payload").cast(String.class).notContains(REFUSED_MARKER)));
  }

  @Test
  void serverStoppedLongerThanTheRetryBudgetCostsNoAttemptAndStillDeadLettersARefusedMessage()
      throws Exception {
    String queue = sqs.createQueue("outage", false);
    List<String> healthy = write(EVENTS, "fine");
    sqs.rejectEntriesContaining(REFUSED_MARKER);
    CountDownLatch cut = new CountDownLatch(1);
    AtomicLong cutAt = new AtomicLong();
    AtomicLong linesAtCut = new AtomicLong();
    sqs.beforeBatchRequest(
        n -> {
          if (n == CUT_AT_REQUEST) {
            linesAtCut.set(logs.list.size());
            cutAt.set(System.nanoTime());
            sqs.stopServer();
            cut.countDown();
          }
        });
    publisher =
        SqsPublisher.builder()
            .client(sqs.client())
            .route("order", queue)
            .sendTimeout(Duration.ofSeconds(5))
            .build();
    relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .publisher(publisher)
            .config(
                RelayConfig.builder()
                    .name("sqs-outage")
                    .batchSize(BATCH_SIZE)
                    .workers(WORKERS)
                    .maxAttempts(3)
                    .backoff(RETRY)
                    .brokerProbeBackoff(new Backoff(PROBE_INTERVAL, PROBE_INTERVAL, 1.0, 0.0))
                    .build())
            .build();
    relay.start();

    assertThat(cut.await(1, TimeUnit.MINUTES)).isTrue();
    List<String> refused = write(1, REFUSED_MARKER);
    await()
        .atMost(OUTAGE.multipliedBy(4))
        .until(
            () ->
                System.nanoTime() - cutAt.get() >= OUTAGE.toNanos()
                    && sqs.batchRequests().size()
                        >= CUT_AT_REQUEST + WORKERS * REQUESTS_PER_BATCH + 3);
    int requestsDuringOutage = sqs.batchRequests().size() - (CUT_AT_REQUEST - 1);
    Duration outage = Duration.ofNanos(System.nanoTime() - cutAt.get());
    List<ILoggingEvent> allLines = List.copyOf(logs.list);
    List<ILoggingEvent> outageLines = allLines.subList((int) linesAtCut.get(), allLines.size());
    int chargedDuringOutage = eventsCharged();
    long deadDuringOutage = admin.deadLetterCount();
    sqs.startServer();

    await()
        .atMost(DRAIN_TIMEOUT)
        .until(() -> admin.pendingCount() == 0 && admin.deadLetterCount() == 1);
    Set<String> received = ConcurrentHashMap.newKeySet();
    await()
        .atMost(DRAIN_TIMEOUT)
        .untilAsserted(
            () -> {
              for (Message m : sqs.receive(queue, EVENTS, Duration.ofSeconds(2))) {
                received.add(SqsHeaders.read(m.messageAttributes()).get(OutboxHeaders.EVENT_ID));
              }
              assertThat(received).containsAll(healthy);
            });
    long inFlight = (long) WORKERS * REQUESTS_PER_BATCH * (1 + IN_FLIGHT_REOPENINGS);
    long allowedRequests = inFlight + outage.toMillis() / PROBE_INTERVAL.toMillis() + 1;
    log.info(
        "SQS outage: {} healthy events, outage {} ms (retry budget {} ms), {} SendMessageBatch"
            + " requests during it (bound {}), {} log lines during it (bound {}): {}",
        EVENTS,
        outage.toMillis(),
        RETRY_BUDGET.toMillis(),
        requestsDuringOutage,
        allowedRequests,
        outageLines.size(),
        MAX_LOG_LINES_DURING_OUTAGE,
        outageLines.stream().map(ILoggingEvent::getFormattedMessage).toList());

    assertThat(chargedDuringOutage).isZero();
    assertThat(deadDuringOutage).isZero();
    assertThat(eventsCharged()).isZero();
    assertThat(requestsDuringOutage).isBetween(WORKERS + 3, (int) allowedRequests);
    assertThat(outageLines).hasSizeLessThanOrEqualTo(MAX_LOG_LINES_DURING_OUTAGE);
    assertThat(received).hasSize(EVENTS);
    List<DeadLetter> dead = admin.deadLetters(null, 10);
    assertThat(dead)
        .singleElement()
        .satisfies(
            d -> {
              assertThat(refused).containsExactly(d.id().toString());
              assertThat(d.attempts()).isEqualTo(1);
              assertThat(d.lastError()).contains("InvalidMessageContents");
            });
  }
}
