package dev.txoutbox.kafka.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.Backoff;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.kafka.KafkaPublisher;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
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
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The broker is stopped for much longer than the relay's whole retry budget while the application
 * keeps writing events, then comes back. Healthy events cost no attempt and none becomes a dead
 * letter, the relay stops claiming and only probes while the broker is down, the log stays quiet,
 * everything arrives afterwards, and a record too large for the producer still becomes a dead
 * letter. This class has a broker of its own, since it stops it.
 */
class KafkaBrokerOutageTest {

  private static final String TOPIC = "outage.payment";
  private static final int WORKERS = 2;
  private static final int BATCH_SIZE = 50;
  private static final int MAX_ATTEMPTS = 3;
  private static final Duration PROBE_DELAY = Duration.ofMillis(500);
  private static final Duration SEND_TIMEOUT = Duration.ofSeconds(1);
  private static final int MAX_REQUEST_SIZE = 100_000;

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
  void anOutageLongerThanTheRetryBudgetCostsNoAttemptPausesClaimingAndLosesNothing() {
    RelayFixture.CountingListener listener = new RelayFixture.CountingListener();
    List<UUID> healthy = Collections.synchronizedList(new ArrayList<>());
    ListAppender<ILoggingEvent> logs = captureLogs();
    UUID tooLarge;
    long stoppedAt;
    long restartedAt;
    try (RelayFixture fixture = new RelayFixture("kafka_outage");
        KafkaPublisher kafkaPublisher =
            KafkaPublisher.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .topicPrefix("outage.")
                .sendTimeout(SEND_TIMEOUT)
                .producerProperty("max.request.size", MAX_REQUEST_SIZE)
                .build();
        CountingPublisher publisher = new CountingPublisher(kafkaPublisher);
        OutboxRelay relay =
            OutboxRelay.builder()
                .dataSource(fixture.db.dataSource())
                .schema(fixture.db.schema())
                .publisher(publisher)
                .listener(listener)
                .config(
                    RelayConfig.builder()
                        .batchSize(BATCH_SIZE)
                        .workers(WORKERS)
                        .maxPollInterval(Duration.ofMillis(200))
                        .maxAttempts(MAX_ATTEMPTS)
                        .backoff(Backoff.exponential(Duration.ofMillis(50), Duration.ofMillis(100)))
                        .brokerProbeBackoff(new Backoff(PROBE_DELAY, PROBE_DELAY, 1.0, 0.0))
                        .build())
                .build()) {
      relay.start();
      healthy.addAll(fixture.write(events(200)));
      await().atMost(RelayFixture.patience()).until(() -> listener.published.get() == 200);

      kafka.stop();
      stoppedAt = System.nanoTime();
      // Keep writing while the broker is down, until the relay has probed it many times.
      await()
          .atMost(RelayFixture.patience())
          .until(
              () -> {
                healthy.addAll(fixture.write(events(10)));
                return publisher.callsSince(stoppedAt) >= 3;
              });
      tooLarge =
          fixture
              .write(
                  List.of(
                      OutboxEvent.of(
                          "payment",
                          "payment-big",
                          "payment.captured",
                          "{\"blob\":\"" + "x".repeat(2 * MAX_REQUEST_SIZE) + "\"}")))
              .get(0);
      // The outage lasts one and a half times the longest retry budget, whatever the machine.
      long outageNanos = retryBudget().toNanos() * 3 / 2;
      await()
          .atMost(RelayFixture.patience())
          .until(
              () -> {
                healthy.addAll(fixture.write(events(10)));
                return System.nanoTime() - stoppedAt > outageNanos;
              });
      int attemptsDuringOutage = attempted(fixture);
      int deadDuringOutage = deadLetters(fixture, tooLarge);
      // The outage ends when the restart begins: the broker may answer before start() returns, and
      // the relay may resume full batches in that moment.
      restartedAt = System.nanoTime();
      kafka.start();
      healthy.addAll(fixture.write(events(100)));

      await().atMost(RelayFixture.patience()).until(() -> fixture.admin.pendingCount() == 0);
      Duration outage = Duration.ofNanos(restartedAt - stoppedAt);
      List<CountingPublisher.Call> during = publisher.calls(stoppedAt, restartedAt);
      int sentDuring = during.stream().mapToInt(CountingPublisher.Call::size).sum();
      List<ILoggingEvent> outageLines = lines(logs, stoppedAt, restartedAt);
      int pendingAtStart = healthy.size();
      System.out.printf(
          "outage %d ms (retry budget of maxAttempts %d: ~%d ms); %d events written, %d during the"
              + " outage; publish calls during the outage %d carrying %d events (largest %d);"
              + " broker-unavailable periods %d; log lines during the outage %d: %s%n",
          outage.toMillis(),
          MAX_ATTEMPTS,
          retryBudget().toMillis(),
          pendingAtStart,
          pendingAtStart - 300,
          during.size(),
          sentDuring,
          during.stream().mapToInt(CountingPublisher.Call::size).max().orElse(0),
          listener.unavailable.get(),
          outageLines.size(),
          outageLines.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList());

      assertThat(attemptsDuringOutage).as("attempts counted during the outage").isZero();
      assertThat(deadDuringOutage).as("healthy dead letters during the outage").isZero();
      // Claiming stopped: after the batches in flight when the broker went, only probes of at most
      // 10 events, one at a time, PROBE_DELAY apart.
      assertThat(during.size())
          .isLessThanOrEqualTo(2 * WORKERS + (int) (outage.toMillis() / PROBE_DELAY.toMillis()));
      assertThat(during.stream().skip(2 * WORKERS)).allMatch(call -> call.size() <= 10);
      assertThat(sentDuring).isLessThanOrEqualTo(2 * WORKERS * BATCH_SIZE + during.size() * 10);
      assertThat(listener.unavailable).hasValue(1);
      assertThat(listener.available).hasValue(1);
      // One WARN when it went down and at most one summary per 30 s; no line per event or batch.
      assertThat(outageLines).hasSizeLessThanOrEqualTo(1 + (int) (outage.toSeconds() / 30) + 1);
      // Afterwards: the healthy events never cost an attempt; the too-large one is a dead letter.
      assertThat(
              fixture.dsl.fetchCount(fixture.events(), attemptsField().gt(0).and(ID.ne(tooLarge))))
          .isZero();
      assertThat(deadLetters(fixture, tooLarge)).isZero();
      assertThat(fixture.admin.deadLetterCount()).isEqualTo(1);
      assertThat(fixture.dsl.fetchCount(fixture.events(), ID.eq(tooLarge).and(DEAD.isNotNull())))
          .isEqualTo(1);
      assertThat(listener.deadLetters).hasValue(1);
    } finally {
      releaseLogs(logs);
    }

    List<String> arrived =
        kafka.readAll(TOPIC, RelayFixture.patience()).stream().map(RelayFixture::eventId).toList();
    Set<String> distinct = Set.copyOf(arrived);
    System.out.printf(
        "in the topic: %d records, %d distinct events of %d written (%d duplicates)%n",
        arrived.size(), distinct.size(), healthy.size(), arrived.size() - distinct.size());
    assertThat(distinct)
        .isEqualTo(healthy.stream().map(UUID::toString).collect(Collectors.toSet()))
        .doesNotContain(tooLarge.toString());
  }

  /**
   * How long a relay with this configuration would take to spend all attempts of an event if every
   * attempt failed retryably: each attempt waits the publisher's longest batch, plus the backoffs.
   */
  private static Duration retryBudget() {
    Duration batch = SEND_TIMEOUT.multipliedBy(3).plusSeconds(1);
    return batch.multipliedBy(MAX_ATTEMPTS).plusMillis(50 + 100);
  }

  private static final Field<UUID> ID = DSL.field(DSL.name("id"), UUID.class);
  private static final Field<Object> DEAD = DSL.field(DSL.name("dead_lettered_at"));

  private static Field<Integer> attemptsField() {
    return DSL.field(DSL.name("attempts"), Integer.class);
  }

  private static int attempted(RelayFixture fixture) {
    return fixture.dsl.fetchCount(fixture.events(), attemptsField().gt(0));
  }

  /** Dead letters other than {@code expected}. */
  private static int deadLetters(RelayFixture fixture, UUID expected) {
    return fixture.dsl.fetchCount(fixture.events(), DEAD.isNotNull().and(ID.ne(expected)));
  }

  private static ListAppender<ILoggingEvent> captureLogs() {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    ((Logger) LoggerFactory.getLogger("dev.txoutbox")).addAppender(logs);
    return logs;
  }

  private static void releaseLogs(ListAppender<ILoggingEvent> logs) {
    ((Logger) LoggerFactory.getLogger("dev.txoutbox")).detachAppender(logs);
    logs.stop();
  }

  /** Lines at INFO and above logged between the two instants (System.nanoTime). */
  private static List<ILoggingEvent> lines(
      ListAppender<ILoggingEvent> logs, long fromNanos, long toNanos) {
    long now = System.nanoTime();
    long nowMillis = System.currentTimeMillis();
    long from = nowMillis - (now - fromNanos) / 1_000_000;
    long to = nowMillis - (now - toNanos) / 1_000_000;
    synchronized (logs.list) {
      return logs.list.stream()
          .filter(e -> e.getLevel().isGreaterOrEqual(Level.INFO))
          .filter(e -> e.getTimeStamp() >= from && e.getTimeStamp() <= to)
          .toList();
    }
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

  /** The real publisher, with a record of every call: when it started and how many events. */
  private static final class CountingPublisher implements Publisher {
    record Call(long startedAt, int size) {}

    private final Publisher delegate;
    private final List<Call> calls = Collections.synchronizedList(new ArrayList<>());

    CountingPublisher(Publisher delegate) {
      this.delegate = delegate;
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
      calls.add(new Call(System.nanoTime(), messages.size()));
      return delegate.publish(messages);
    }

    @Override
    public String name() {
      return delegate.name();
    }

    int callsSince(long fromNanos) {
      synchronized (calls) {
        return (int) calls.stream().filter(c -> c.startedAt() - fromNanos >= 0).count();
      }
    }

    /** The calls started from {@code fromNanos} (inclusive) to {@code toNanos}, in order. */
    List<Call> calls(long fromNanos, long toNanos) {
      synchronized (calls) {
        return calls.stream()
            .filter(c -> c.startedAt() - fromNanos >= 0 && toNanos - c.startedAt() > 0)
            .toList();
      }
    }
  }
}
