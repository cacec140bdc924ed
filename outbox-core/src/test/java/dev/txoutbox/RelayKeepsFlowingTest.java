package dev.txoutbox;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.txoutbox.internal.json.Json;
import dev.txoutbox.schema.model.tables.records.OutboxEventsRecord;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One unreadable row or a broker outage longer than the retry budget: neither stops the other
 * events or costs a healthy event an attempt.
 */
class RelayKeepsFlowingTest {

  /** Deeper than the relay reads headers. */
  private static final int DEEP = Json.MAX_DEPTH + 10;

  private static TestDatabase db;
  private static DSLContext mapped;
  private OutboxRelay relay;
  @RegisterExtension final RelayLog logs = new RelayLog();

  @BeforeAll
  static void database() {
    db = TestDatabase.create("flowing", 8);
    mapped = TestSupport.mapped(db);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void clean() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
  }

  @AfterEach
  void stop() {
    if (relay != null) {
      relay.close(Duration.ofSeconds(5));
    }
  }

  /** Inserts {@code n} healthy events by SQL, as another tool would. */
  private void insertHealthy(int n, String prefix) {
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'order', '"
            + prefix
            + "' || g, 'order.created', jsonb_build_object('n', g)"
            + " FROM generate_series(1, "
            + n
            + ") g");
  }

  private UUID insertPoison(String payloadSql, String headersSql) {
    return TestSupport.insertPoison(db, "poison", payloadSql, headersSql);
  }

  /** The row's state columns; not its payload, which may be one the server cannot render. */
  private OutboxEventsRecord row(UUID id) {
    return mapped
        .select(
            OUTBOX_EVENTS.ATTEMPTS,
            OUTBOX_EVENTS.RETRY_AFTER,
            OUTBOX_EVENTS.DEAD_LETTERED_AT,
            OUTBOX_EVENTS.LAST_ERROR)
        .from(OUTBOX_EVENTS)
        .where(OUTBOX_EVENTS.ID.eq(id))
        .fetchSingle()
        .into(OUTBOX_EVENTS);
  }

  private int pending() {
    return mapped.fetchCount(
        OUTBOX_EVENTS,
        OUTBOX_EVENTS.PROCESSED_AT.isNull().and(OUTBOX_EVENTS.DEAD_LETTERED_AT.isNull()));
  }

  @Test
  void unreadableRowsBecomeDeadLettersWhileEveryOtherEventIsDelivered() {
    insertHealthy(500, "a");
    Map<String, UUID> poison =
        Map.of(
            "headers []", insertPoison("'{}'", "'[]'"),
            "headers null", insertPoison("'{}'", "'null'"),
            "headers nested too deep",
                insertPoison("'{}'", "'{\"a\":" + "[".repeat(DEEP) + "]".repeat(DEEP) + "}'"),
            "headers a string", insertPoison("'{}'", "'\"text\"'"),
            // Stored in 2 KB, rendered as 1.09 GB: PostgreSQL cannot send it ("out of memory").
            "payload huge numbers",
                insertPoison(
                    "(SELECT jsonb_agg(1e131071::numeric) FROM generate_series(1, 8300))", "'{}'"));
    insertHealthy(500, "b");
    RecordingPublisher publisher = new RecordingPublisher();
    relay =
        TestSupport.relayBuilder(db, publisher)
            .config(RelayConfig.builder().batchSize(100).build())
            .build();
    relay.start();

    await().atMost(Duration.ofSeconds(90)).until(() -> pending() == 0);

    assertThat(publisher.publishCounts()).hasSize(1000);
    assertThat(publisher.publishCounts().values()).allMatch(n -> n == 1);
    poison.forEach(
        (what, id) -> {
          OutboxEventsRecord r = row(id);
          assertThat(r.getDeadLetteredAt()).as(what).isNotNull();
          assertThat(r.getLastError()).as(what).startsWith("unreadable row: ");
        });
    assertThat(row(poison.get("payload huge numbers")).getLastError()).contains("out of memory");
    assertThat(publisher.attempted()).noneMatch(m -> poison.containsValue(m.id()));
  }

  @Test
  void textFromTheDatabaseOrTheBrokerCannotSplitALogLineOrLeakACredential() throws Exception {
    db.execute(
        "INSERT INTO "
            + db.schema()
            + ".outbox_events (id, aggregate_type, aggregate_id, event_type, payload) VALUES"
            + " (gen_random_uuid(), 'order', E'o\\n1', E'order.created\\n\\u001b[31mFAKE', '{}')");
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m -> PublishResult.permanent("refused by amqp://app:s3cret-pw@rabbit:5672/\nnext"));
    relay = TestSupport.relayBuilder(db, publisher).build();

    assertThat(relay.runOnce()).isEqualTo(1);

    ILoggingEvent dead =
        logs.events().stream().filter(e -> e.getLevel() == Level.ERROR).findFirst().orElseThrow();
    assertThat(dead.getFormattedMessage())
        .contains("order.created\\n\\u001b[31mFAKE")
        .doesNotContain("\n")
        .doesNotContain("\u001b")
        .doesNotContain("s3cret-pw");
    assertThat(dead.getKeyValuePairs())
        .anyMatch(kv -> kv.key.equals("aggregate_id") && kv.value.equals("o\\n1"));
  }

  @Test
  void anOutageLongerThanTheRetryBudgetCostsNoAttemptAndPausesClaiming() throws Exception {
    insertHealthy(2000, "a");
    UUID unroutable = insertPoison("'{\"route\":\"nowhere\"}'", "'{}'");
    AtomicBoolean brokerDown = new AtomicBoolean(true);
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m -> {
                  if (brokerDown.get()) {
                    return PublishResult.brokerUnavailable(
                        "connection refused", new java.net.ConnectException("refused"));
                  }
                  return m.id().equals(unroutable)
                      ? PublishResult.permanent("unroutable")
                      : PublishResult.published();
                });
    Duration probe = Duration.ofMillis(200);
    RelayConfig config =
        RelayConfig.builder()
            .batchSize(100)
            .workers(2)
            .maxAttempts(3)
            .backoff(Backoff.exponential(Duration.ofMillis(10), Duration.ofMillis(20)))
            .brokerProbeBackoff(new Backoff(probe, probe, 1.0, 0.0))
            .build();
    RecordingListener listener = new RecordingListener();
    relay = TestSupport.relayBuilder(db, publisher).config(config).listener(listener).build();
    relay.start();

    // The whole retry budget is ~30 ms; the outage lasts until 8 probes have gone out.
    await().atMost(Duration.ofSeconds(30)).until(() -> publisher.batches() >= 9);
    int batchesDuringOutage = publisher.batches();
    Set<UUID> attemptedDuringOutage =
        publisher.attempted().stream().map(m -> m.id()).collect(Collectors.toSet());
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0))).isZero();
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.DEAD_LETTERED_AT.isNotNull()))
        .isZero();
    // Only the first full batch of each worker and then one probe of at most 10 at a time.
    assertThat(publisher.attempted().size())
        .isLessThanOrEqualTo(2 * 100 + (batchesDuringOutage - 2) * 10);
    assertThat(attemptedDuringOutage.size()).isLessThanOrEqualTo(200);
    assertThat(listener.unavailable).hasSize(1);

    brokerDown.set(false);
    await().atMost(Duration.ofSeconds(30)).until(() -> pending() == 0);

    assertThat(publisher.publishCounts()).hasSize(2000);
    assertThat(mapped.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0))).isEqualTo(1);
    OutboxEventsRecord dead = row(unroutable);
    assertThat(dead.getDeadLetteredAt()).isNotNull();
    assertThat(dead.getAttempts()).isEqualTo(1);
    assertThat(listener.available).hasSize(1);
    List<ILoggingEvent> warnings =
        logs.events().stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).toList();
    // One WARN when it went down, the ERROR of the dead letter; no line per event or per probe.
    assertThat(warnings).hasSizeLessThanOrEqualTo(3);
    assertThat(logs.events().stream().filter(e -> e.getLevel() == Level.INFO))
        .anyMatch(e -> e.getFormattedMessage().contains("broker available again"));
  }

  @Test
  void eventsTheBrokerWasUnavailableToWhileItTookOthersAreDeferredAtNoAttempt() throws Exception {
    insertHealthy(10, "a");
    UUID stuck = insertPoison("'{}'", "'{}'");
    RecordingPublisher publisher =
        new RecordingPublisher()
            .answer(
                m ->
                    m.id().equals(stuck)
                        ? PublishResult.brokerUnavailable("partition leader not available")
                        : PublishResult.published());
    relay = TestSupport.relayBuilder(db, publisher).build();

    assertThat(relay.runOnce()).isEqualTo(11);
    assertThat(relay.runOnce()).isZero();

    OutboxEventsRecord r = row(stuck);
    assertThat(r.getAttempts()).isZero();
    assertThat(r.getRetryAfter()).isNotNull();
    assertThat(r.getDeadLetteredAt()).isNull();
    assertThat(publisher.publishCounts()).hasSize(10);
  }

  @Test
  void startFailsFastWhenTheSchemaHasNoOutboxTable() {
    relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema("no_such_schema_" + Long.toHexString(System.nanoTime()))
            .publisher(new RecordingPublisher())
            .build();
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("outbox_events")
        .hasMessageContaining("does not exist")
        .hasMessageContaining("OutboxSchema.migrate");
    assertThat(relay.isRunning()).isFalse();
  }

  /** Records the broker state changes the relay reports. */
  private static final class RecordingListener implements RelayListener {
    final List<String> unavailable = new java.util.concurrent.CopyOnWriteArrayList<>();
    final List<Duration> available = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public void brokerUnavailable(String reason) {
      unavailable.add(reason);
    }

    @Override
    public void brokerAvailable(Duration outage) {
      available.add(outage);
    }
  }
}
