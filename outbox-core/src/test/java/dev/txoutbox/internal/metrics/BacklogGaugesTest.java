package dev.txoutbox.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxAdmin;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The backlog gauges over the real outbox table, read through a call-counting admin. */
class BacklogGaugesTest {

  private static TestDatabase db;
  private static DSLContext dsl;

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private CountingAdmin admin;
  private RelayMeters metrics;

  @BeforeAll
  static void database() {
    db = TestDatabase.create("metrics_backlog");
    dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
  }

  @AfterAll
  static void drop() {
    db.close();
  }

  @BeforeEach
  void metrics() {
    db.execute("TRUNCATE " + db.schema() + ".outbox_events");
    OutboxAdmin real = OutboxAdmin.create(db.dataSource(), db.schema());
    admin = new CountingAdmin(real::status);
    metrics =
        RelayMeters.register(
            OutboxMetrics.builder(registry).refreshInterval(Duration.ofHours(1)).build(),
            "orders",
            admin);
    // The refresh thread's first run, at once; the next one is an hour away.
    // Wait for the gauges too: the status call returns before its values are set.
    await()
        .until(() -> admin.statusCalls.get() == 1 && !Double.isNaN(gauge("outbox.events.pending")));
  }

  @AfterEach
  void close() {
    metrics.close();
  }

  private void write(int n) {
    Outbox outbox = Outbox.builder().schema(db.schema()).build();
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(OutboxEvent.of("order", "o-" + i, "order.created", "{}"));
    }
    dsl.transaction(tx -> outbox.recordAll(tx.dsl(), events));
  }

  private double gauge(String name) {
    return registry.get(name).tag("relay", "orders").gauge().value();
  }

  @Test
  void gaugesShowTheTableAfterARefresh() {
    assertThat(gauge("outbox.events.pending")).isZero();
    write(5);
    db.execute(
        "UPDATE "
            + db.schema()
            + ".outbox_events SET created_at = now() - interval '10 minutes'"
            + " WHERE seq = (SELECT min(seq) FROM "
            + db.schema()
            + ".outbox_events)");
    db.execute(
        "UPDATE "
            + db.schema()
            + ".outbox_events SET dead_lettered_at = now(), attempts = 3"
            + " WHERE seq = (SELECT max(seq) FROM "
            + db.schema()
            + ".outbox_events)");
    assertThat(gauge("outbox.events.pending")).as("not before the next refresh").isZero();

    metrics.refresh();

    assertThat(gauge("outbox.events.pending")).isEqualTo(4);
    assertThat(gauge("outbox.dead.letters")).isEqualTo(1);
    assertThat(gauge("outbox.oldest.pending.age")).isBetween(600.0, 3600.0);
  }

  @Test
  void aHundredScrapesRunNoQueryOnlyTheRefreshThreadDoes() {
    write(3);
    metrics.refresh();
    int before = admin.statusCalls.get();

    for (int i = 0; i < 100; i++) {
      assertThat(registry.scrape()).contains("outbox_events_pending{relay=\"orders\"} 3.0");
    }

    assertThat(admin.statusCalls).hasValue(before);
    assertThat(admin.callerThreads).contains("outbox-relay-orders-metrics");
  }
}
