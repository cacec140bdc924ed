package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.txoutbox.Backoff;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.RetryPolicy;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * The fate scenario table (issue 33): each publisher script run through the polling relay and the
 * WAL relay, in unordered and per-aggregate ordering, against real PostgreSQL. Both must leave the
 * same rows, tell the listeners the same, count the same meters and write a bounded log; where the
 * WAL relay differs by policy (it holds the slot and publishes the batch again instead of leaving
 * it), the row says so.
 *
 * <p>A batch is 24 events of 12 aggregates, two each ({@code a0: e0 e1, a1: e2 e3, …}), written in
 * one transaction so that both relays see one batch. The polling relay runs one cycle; the WAL
 * relay runs until its batch is recorded. An event not attempted after a failure of its aggregate
 * stays as it was in the polling relay ({@code N}) and is deferred behind that failure by the WAL
 * relay, which leaves it to its sweeper ({@code B}): that POLICY difference is in the specs.
 */
class FateTableTest {

  private static final int EVENTS = 24;
  private static final AtomicInteger RUNS = new AtomicInteger();
  private static final String BIG = "bad\u0000" + "x".repeat(10 * 1024);

  /** What became of one event. */
  enum Fate {
    /** Published: processed, no attempt. */
    P,
    /** Retried: one attempt, a retry time, an error. */
    R,
    /** Dead letter: one attempt, a dead-letter time, an error. */
    D,
    /** Broker unavailable to it while others were answered: deferred at no attempt. */
    U,
    /** Not attempted (after a failure in its aggregate), or rolled back: pending as written. */
    N,
    /**
     * Not attempted, and by the WAL relay's POLICY deferred behind its aggregate's failed event
     * (pending, no attempt, a retry time): the WAL relay leaves it to the polling relay.
     */
    B
  }

  enum Kind {
    POLLING,
    WAL
  }

  /** A publisher script: the first call's answer; later calls publish everything. */
  record Script(String name, Function<List<OutboxMessage>, List<PublishResult>> first) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** Throws {@code t} from a script. */
  private static List<PublishResult> sneaky(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    throw (Error) t;
  }

  private static List<PublishResult> each(
      List<OutboxMessage> batch, Function<Integer, PublishResult> byIndex) {
    return batch.stream().map(m -> byIndex.apply(index(m))).collect(Collectors.toList());
  }

  private static int index(OutboxMessage m) {
    return Integer.parseInt(m.eventType().substring(1));
  }

  /** {@code spec}'s fates by event: a letter per event, blanks ignored. */
  private static List<Fate> fates(String spec) {
    return spec.replace(" ", "")
        .chars()
        .mapToObj(c -> Fate.valueOf(String.valueOf((char) c)))
        .toList();
  }

  private static final String ALL_P = "PP PP PP PP PP PP PP PP PP PP PP PP";
  private static final String ALL_R = "RN RN RN RN RN RN RN RN RN RN RN RN";
  private static final String ALL_RB = "RB RB RB RB RB RB RB RB RB RB RB RB";
  private static final String ALL_N = "NN NN NN NN NN NN NN NN NN NN NN NN";

  /**
   * A row: the script, the fates by relay, the expected {@code last_error} of failed events, and
   * the broker outages and failed runs each relay reports.
   */
  record Row(
      Script script,
      String pollingFates,
      String walFates,
      Function<Integer, String> lastError,
      int pollingOutages,
      int walOutages,
      boolean walCycleFailed,
      String policy,
      UnaryOperator<RelayConfig.Builder> retryPolicies) {

    Row(
        Script script,
        String pollingFates,
        String walFates,
        Function<Integer, String> lastError,
        int pollingOutages,
        int walOutages,
        boolean walCycleFailed,
        String policy) {
      this(
          script,
          pollingFates,
          walFates,
          lastError,
          pollingOutages,
          walOutages,
          walCycleFailed,
          policy,
          UnaryOperator.identity());
    }
  }

  private static final Backoff HOUR =
      Backoff.exponential(Duration.ofHours(1), Duration.ofHours(1)).withJitter(0);

  static List<Row> rows() {
    return List.of(
        new Row(
            new Script("all published", b -> each(b, i -> PublishResult.published())),
            ALL_P,
            ALL_P,
            i -> null,
            0,
            0,
            false,
            ""),
        // Drift 1: the cause is appended to a reason that lacks it.
        new Row(
            new Script(
                "one retryable failure",
                b ->
                    each(
                        b,
                        i ->
                            i == 0
                                ? PublishResult.retryable(
                                    "send failed", new IOException("connection reset"))
                                : PublishResult.published())),
            "RN PP PP PP PP PP PP PP PP PP PP PP",
            "RB PP PP PP PP PP PP PP PP PP PP PP",
            i -> "send failed: java.io.IOException: connection reset",
            0,
            0,
            false,
            ""),
        new Row(
            new Script(
                "permanent failure",
                b ->
                    each(
                        b,
                        i ->
                            i == 4
                                ? PublishResult.permanent("rejected")
                                : PublishResult.published())),
            "PP PP DN PP PP PP PP PP PP PP PP PP",
            "PP PP DB PP PP PP PP PP PP PP PP PP",
            i -> "rejected",
            0,
            0,
            false,
            ""),
        new Row(
            new Script(
                "broker unavailable for all",
                b -> each(b, i -> PublishResult.brokerUnavailable("broker down"))),
            ALL_N,
            ALL_P,
            i -> null,
            1,
            2,
            false,
            "POLICY: the polling relay leaves the batch untouched and opens its circuit (one"
                + " cycle run here); the WAL relay holds the slot and publishes the same batch"
                + " again, so it reports the outage and its end"),
        new Row(
            new Script(
                "broker unavailable for some",
                b ->
                    each(
                        b,
                        i ->
                            i == 6
                                ? PublishResult.brokerUnavailable("broker down")
                                : PublishResult.published())),
            "PP PP PP UN PP PP PP PP PP PP PP PP",
            "PP PP PP UB PP PP PP PP PP PP PP PP",
            i -> null,
            0,
            0,
            false,
            ""),
        // Drifts 1, 3 and 6: twelve retries in one batch.
        new Row(
            new Script("throws a RuntimeException", b -> sneaky(new IllegalStateException("boom"))),
            ALL_R,
            ALL_RB,
            i -> "publisher threw: java.lang.IllegalStateException: boom",
            0,
            0,
            false,
            ""),
        // Drift 2: an Error rolls the batch back at no attempt.
        new Row(
            new Script("throws an Error", b -> sneaky(new AssertionError("publisher bug"))),
            ALL_N,
            ALL_P,
            i -> null,
            0,
            0,
            true,
            "POLICY: runOnce() throws the Error to its caller with the batch rolled back; the"
                + " WAL relay's stream fails, reopens and publishes the batch again"),
        new Row(
            new Script("wrong-sized answer", b -> List.of(PublishResult.published())),
            ALL_R,
            ALL_RB,
            i -> "publisher scripted returned 1 results for 24 messages",
            0,
            0,
            false,
            ""),
        new Row(
            new Script(
                "a null entry",
                b -> {
                  List<PublishResult> r = new ArrayList<>(each(b, i -> PublishResult.published()));
                  for (int k = 0; k < b.size(); k++) {
                    if (index(b.get(k)) == 2) {
                      r.set(k, null);
                    }
                  }
                  return r;
                }),
            "PP RN PP PP PP PP PP PP PP PP PP PP",
            "PP RB PP PP PP PP PP PP PP PP PP PP",
            i -> "publisher returned null",
            0,
            0,
            false,
            ""),
        new Row(
            new Script(
                "U+0000 and 10 KB of reason",
                b ->
                    each(
                        b, i -> i == 0 ? PublishResult.retryable(BIG) : PublishResult.published())),
            "RN PP PP PP PP PP PP PP PP PP PP PP",
            "RB PP PP PP PP PP PP PP PP PP PP PP",
            i -> "bad\uFFFD" + "x".repeat(1995) + "…",
            0,
            0,
            false,
            ""),
        // Issue 35: each event type's own retry policy, then its aggregate type's, then the
        // default. e0's type allows one attempt; e2 falls to the aggregate type's age limit (1 ms,
        // long past when it fails); e4's type has a policy of its own, which wins over the age.
        new Row(
            new Script(
                "per-type retry policies",
                b ->
                    each(
                        b,
                        i ->
                            i == 0 || i == 2 || i == 4
                                ? PublishResult.retryable("send failed")
                                : PublishResult.published())),
            "DN DN RN PP PP PP PP PP PP PP PP PP",
            "DB DB RB PP PP PP PP PP PP PP PP PP",
            i -> "send failed",
            0,
            0,
            false,
            "",
            b ->
                b.retryPolicy("e0", RetryPolicy.of(1, HOUR))
                    .aggregateRetryPolicy(
                        "order", RetryPolicy.of(100, HOUR).withMaxAge(Duration.ofMillis(1)))
                    .retryPolicy("e4", RetryPolicy.of(3, HOUR))));
  }

  static Stream<Arguments> table() {
    List<Arguments> all = new ArrayList<>();
    for (Row row : rows()) {
      for (Ordering ordering : List.of(Ordering.NONE, Ordering.PER_AGGREGATE)) {
        for (Kind kind : Kind.values()) {
          all.add(Arguments.of(row.script(), ordering, kind, row));
        }
      }
    }
    return all.stream();
  }

  private final WalTestKit kit = new WalTestKit();
  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
    kit.close();
  }

  /** The scripted publisher: the script's answer to the first call, then all published. */
  static final class Scripted implements Publisher {
    private final Script script;
    final AtomicInteger calls = new AtomicInteger();

    Scripted(Script script) {
      this.script = script;
    }

    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public List<PublishResult> publish(List<OutboxMessage> messages) {
      if (calls.getAndIncrement() == 0) {
        return script.first().apply(messages);
      }
      return Collections.nCopies(messages.size(), PublishResult.published());
    }
  }

  /** Notes each call by event index; {@code batchCompleted} as its counts. */
  static final class Recording implements RelayListener {
    final List<String> heard = new CopyOnWriteArrayList<>();

    @Override
    public void published(OutboxMessage m) {
      heard.add("published " + index(m));
    }

    @Override
    public void willRetry(OutboxMessage m, PublishResult failure, Duration delay) {
      heard.add("willRetry " + index(m));
    }

    @Override
    public void deadLettered(OutboxMessage m, PublishResult failure) {
      heard.add("deadLettered " + index(m));
    }

    @Override
    public void batchCompleted(int claimed, int published, int failed, Duration duration) {
      heard.add("batchCompleted " + claimed + "/" + published + "/" + failed);
    }

    @Override
    public void cycleFailed(Throwable error) {
      heard.add("cycleFailed");
    }

    @Override
    public void brokerUnavailable(String reason) {
      heard.add("brokerUnavailable");
    }

    @Override
    public void brokerAvailable(Duration outage) {
      heard.add("brokerAvailable");
    }
  }

  /** A listener that throws on every call: the others must hear everything regardless. */
  static final class Throwing implements RelayListener {
    @Override
    public void published(OutboxMessage m) {
      throw new IllegalStateException("listener bug");
    }

    @Override
    public void willRetry(OutboxMessage m, PublishResult failure, Duration delay) {
      throw new IllegalStateException("listener bug");
    }

    @Override
    public void batchCompleted(int claimed, int published, int failed, Duration duration) {
      throw new IllegalStateException("listener bug");
    }
  }

  /** Counts the statements prepared on its connections that write {@code last_error}. */
  static DataSource counting(DataSource target, AtomicInteger failStatements) {
    return (DataSource)
        Proxy.newProxyInstance(
            FateTableTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, a) -> {
              Object r = invoke(target, m, a);
              if (r instanceof Connection c) {
                return Proxy.newProxyInstance(
                    FateTableTest.class.getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (cp, cm, ca) -> {
                      if (cm.getName().startsWith("prepare")
                          && ca != null
                          && ca[0] instanceof String sql
                          && sql.toLowerCase().startsWith("update")
                          && sql.contains("last_error")) {
                        failStatements.incrementAndGet();
                      }
                      return invoke(c, cm, ca);
                    });
              }
              return r;
            });
  }

  private static Object invoke(Object target, java.lang.reflect.Method m, Object[] a)
      throws Throwable {
    try {
      return m.invoke(target, a);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @ParameterizedTest(name = "{0}, {1}, {2}")
  @MethodSource("table")
  void eachScriptLeavesTheSameFates(Script script, Ordering ordering, Kind kind, Row row)
      throws Exception {
    // Soft: a row reports every way it differs, each drift of issue 33 on its own.
    SoftAssertions softly = new SoftAssertions();
    OutboxTables tables = LogicalServer.freshOutbox("ft_");
    if (ordering != Ordering.NONE) {
      OutboxSchema.migrateOrderingIndex(LogicalServer.dataSource(), tables);
    }
    String name = "fates" + RUNS.incrementAndGet();
    AtomicInteger failStatements = new AtomicInteger();
    DataSource dataSource = counting(LogicalServer.dataSource(), failStatements);
    Scripted publisher = new Scripted(script);
    Recording recording = new Recording();
    MeterRegistry registry = new SimpleMeterRegistry();
    RelayConfig config =
        row.retryPolicies()
            .apply(RelayConfig.builder())
            .name(name)
            .batchSize(100)
            .maxAttempts(5)
            .ordering(ordering)
            .backoff(Backoff.exponential(Duration.ofHours(1), Duration.ofHours(1)).withJitter(0))
            .brokerProbeBackoff(
                Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(10)).withJitter(0))
            .shutdownTimeout(Duration.ofSeconds(5))
            .build();
    String loggerName = kind == Kind.POLLING ? "dev.txoutbox.relay" : "dev.txoutbox.wal";
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger logger = (Logger) LoggerFactory.getLogger(loggerName);
    logger.addAppender(log);
    closing.add(() -> logger.detachAppender(log));

    List<java.util.UUID> ids;
    if (kind == Kind.POLLING) {
      OutboxRelay relay =
          OutboxRelay.builder()
              .dataSource(dataSource)
              .tables(tables)
              .publisher(publisher)
              .config(config)
              .metrics(registry)
              .listener(recording) // drift 7: listeners add up, one's failure isolated
              .listener(new Throwing())
              .build();
      closing.add(relay);
      softly
          .assertThat(metersThreadAfterBuild("outbox-relay-" + name + "-metrics"))
          .isTrue(); // drift 8
      ids = writeBatch(tables);
      failStatements.set(0);
      if (row.walCycleFailed()) {
        assertThatThrownBy(relay::runOnce).isInstanceOf(AssertionError.class);
      } else {
        relay.runOnce();
      }
    } else {
      WalRelay relay =
          kit.relay(
              WalTestKit.builder(dataSource, LogicalServer.jdbcUrl(), tables, publisher, config)
                  .metrics(registry)
                  .listener(recording) // drift 7: the WAL builder replaced its listener
                  .listener(new Throwing()));
      softly
          .assertThat(metersThreadAfterBuild("outbox-wal-" + name + "-meters"))
          .isTrue(); // drift 8
      relay.start();
      failStatements.set(0);
      ids = writeBatch(tables);
      // Once recorded (in the POLICY rows, after the batch was published again).
      try {
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> recording.heard.stream().anyMatch(h -> h.startsWith("batchCompleted")));
      } catch (ConditionTimeoutException e) {
        softly.fail("the listener heard no batchCompleted within 20 s: " + recording.heard);
      }
      // Left running (the kit closes it): close() would remove the meters read below.
    }

    List<Fate> expected = fates(kind == Kind.POLLING ? row.pollingFates() : row.walFates());
    String because = row.policy().isEmpty() ? "same for both relays" : row.policy();

    // The rows.
    var byId = LogicalServer.dsl(tables).selectFrom(OUTBOX_EVENTS).fetchMap(OUTBOX_EVENTS.ID);
    for (int i = 0; i < EVENTS; i++) {
      var r = byId.get(ids.get(i));
      Fate fate = expected.get(i);
      String what = "event " + i + " (" + because + ")";
      int attempts = r.get(OUTBOX_EVENTS.ATTEMPTS);
      softly
          .assertThat(attempts)
          .as(what + " attempts")
          .isEqualTo(fate == Fate.R || fate == Fate.D ? 1 : 0);
      softly
          .assertThat(r.get(OUTBOX_EVENTS.PROCESSED_AT) != null)
          .as(what + " processed")
          .isEqualTo(fate == Fate.P);
      softly
          .assertThat(r.get(OUTBOX_EVENTS.RETRY_AFTER) != null)
          .as(what + " retry_after")
          .isEqualTo(fate == Fate.R || fate == Fate.U || fate == Fate.B);
      softly
          .assertThat(r.get(OUTBOX_EVENTS.DEAD_LETTERED_AT) != null)
          .as(what + " dead_lettered_at")
          .isEqualTo(fate == Fate.D);
      softly
          .assertThat(r.get(OUTBOX_EVENTS.LAST_ERROR))
          .as(what + " last_error")
          .isEqualTo(fate == Fate.R || fate == Fate.D ? row.lastError().apply(i) : null);
    }

    // The listener calls, each application listener hearing them despite the other's failures.
    List<String> perEvent = new ArrayList<>();
    for (int i = 0; i < EVENTS; i++) {
      switch (expected.get(i)) {
        case P -> perEvent.add("published " + i);
        case R -> perEvent.add("willRetry " + i);
        case D -> perEvent.add("deadLettered " + i);
        case U, N, B -> {}
      }
    }
    softly
        .assertThat(recording.heard.stream().filter(h -> h.matches("[a-zA-Z]+ \\d+")))
        .as("per-event listener calls (%s)", because)
        .containsExactlyInAnyOrderElementsOf(perEvent);
    int outages = kind == Kind.POLLING ? row.pollingOutages() : row.walOutages();
    softly
        .assertThat(recording.heard.stream().filter(h -> h.startsWith("broker")))
        .as("broker outage calls (%s)", because)
        .hasSize(outages);
    boolean cycleFailed = kind == Kind.WAL && row.walCycleFailed();
    softly
        .assertThat(recording.heard.contains("cycleFailed"))
        .as("cycleFailed")
        .isEqualTo(cycleFailed);
    if (row.policy().isEmpty()) {
      long published = expected.stream().filter(f -> f == Fate.P).count();
      long failed = expected.stream().filter(f -> f == Fate.R || f == Fate.D).count();
      softly
          .assertThat(recording.heard.stream().filter(h -> h.startsWith("batchCompleted")))
          .containsExactly("batchCompleted " + EVENTS + "/" + published + "/" + failed);
    }

    // The meters count what the listeners heard.
    softly
        .assertThat(counter(registry, "outbox.events.published"))
        .isEqualTo(expected.stream().filter(f -> f == Fate.P).count());
    softly
        .assertThat(counter(registry, "outbox.events.dead.lettered"))
        .isEqualTo(expected.stream().filter(f -> f == Fate.D).count());

    // One statement records every failure of the batch (drift 6).
    softly
        .assertThat(failStatements.get())
        .as("statements writing last_error")
        .isLessThanOrEqualTo(1);

    // A bounded, structured log (drifts 3 and 4).
    List<ILoggingEvent> lines;
    synchronized (log) {
      lines = List.copyOf(log.list);
    }
    List<ILoggingEvent> eventLines =
        lines.stream()
            .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
            .filter(e -> e.getFormattedMessage().matches("(?s).*attempt \\d+.*"))
            .toList();
    softly
        .assertThat(eventLines.size())
        .as("per-event WARN/ERROR lines of the batch")
        .isLessThanOrEqualTo(10);
    for (ILoggingEvent e : eventLines) {
      softly
          .assertThat(keys(e))
          .as(e.getFormattedMessage())
          .contains("event_id", "event_type", "aggregate_id", "attempt");
    }
    softly
        .assertThat(lines)
        .as("durations as DurationText")
        .noneMatch(e -> e.getFormattedMessage().matches("(?s).* PT\\d.*"));
    softly
        .assertThat(lines.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).count())
        .as("WARN/ERROR lines")
        .isLessThanOrEqualTo(14);
    softly.assertAll();
  }

  private static List<String> keys(ILoggingEvent e) {
    return e.getKeyValuePairs() == null
        ? List.of()
        : e.getKeyValuePairs().stream().map(kv -> kv.key).toList();
  }

  private static double counter(MeterRegistry registry, String name) {
    return registry.find(name).counters().stream().mapToDouble(c -> c.count()).sum();
  }

  private static boolean metersThreadAfterBuild(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(name) && t.isAlive());
  }

  /** Writes the batch in one transaction: e0..e23, two events per aggregate, in order. */
  private static List<java.util.UUID> writeBatch(OutboxTables tables) {
    Outbox outbox = Outbox.builder().tables(tables).build();
    List<java.util.UUID> ids = new ArrayList<>();
    LogicalServer.dsl(tables)
        .transaction(
            c ->
                IntStream.range(0, EVENTS)
                    .forEach(
                        i ->
                            ids.add(
                                outbox.record(
                                    c.dsl(),
                                    OutboxEvent.of("order", "a" + (i / 2), "e" + i, "{}")))));
    return ids;
  }

  @Test
  void aBuilderWithoutItsPartsThrowsIllegalStateAsThePollingRelaysDoes() {
    assertThatThrownBy(() -> WalRelay.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("dataSource");
    assertThatThrownBy(() -> OutboxRelay.builder().dataSource(LogicalServer.dataSource()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("publisher");
  }
}
