package dev.txoutbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.metrics.OutboxMetrics;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.RecordingPublisher;
import dev.txoutbox.testing.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A table prefix, followed by the writer, the relay, its admin, its gauges and its wake-ups. */
class TablePrefixTest {

  private TestDatabase db;
  private final List<AutoCloseable> closeLast = new ArrayList<>();

  @BeforeEach
  void setUp() {
    db = TestDatabase.createEmpty("prefix", 6);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closeLast) {
      c.close();
    }
    db.close();
  }

  private OutboxTables migrated(String prefix) {
    OutboxTables tables = OutboxTables.of(db.schema(), prefix);
    OutboxSchema.migrate(db.dataSource(), tables);
    return tables;
  }

  private OutboxRelay relay(String name, OutboxTables tables, RecordingPublisher publisher) {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .tables(tables)
            .publisher(publisher)
            .config(RelayConfig.builder().name(name).build())
            .build();
    closeLast.add(0, relay);
    return relay;
  }

  private List<UUID> write(Outbox outbox, String aggregateId, int events) {
    DSLContext dsl = DSL.using(db.dataSource(), SQLDialect.POSTGRES);
    return dsl.transactionResult(
        tx -> {
          List<UUID> ids = new ArrayList<>();
          for (int i = 0; i < events; i++) {
            ids.add(outbox.record(tx.dsl(), "order", aggregateId, "order.created", "{}"));
          }
          return ids;
        });
  }

  @Test
  void writerRelayAndAdminAllWorkThroughThePrefix() throws InterruptedException {
    OutboxTables tables = migrated("bill_");
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay = relay("bill", tables, publisher);
    Outbox outbox = Outbox.builder().relay(relay).build();

    List<UUID> ids = write(outbox, "o-1", 3);
    assertThat(relay.admin().tables()).isEqualTo(tables);
    assertThat(relay.admin().pendingCount()).isEqualTo(3);
    assertThat(relay.runOnce()).isEqualTo(3);
    assertThat(publisher.published()).extracting(OutboxMessage::id).containsExactlyElementsOf(ids);
    assertThat(relay.admin().pendingCount()).isZero();
    assertThat(
            OutboxAdmin.builder()
                .dataSource(db.dataSource())
                .schema(db.schema())
                .tablePrefix("bill_")
                .build()
                .status()
                .pending())
        .isZero();

    // The rows are in bill_outbox_events, and there is no unprefixed table to write to.
    assertThat(
            DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                .fetchCount(DSL.table(DSL.name(db.schema(), "bill_outbox_events"))))
        .isEqualTo(3);
    Outbox unprefixed = Outbox.builder().schema(db.schema()).build();
    assertThatThrownBy(() -> write(unprefixed, "o-2", 1))
        .isInstanceOf(DataAccessException.class)
        .hasMessageContaining("outbox_events\" does not exist");
  }

  @Test
  void aRelayWhosePrefixedTableIsMissingSaysHowToMigrateThatPrefix() {
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .tablePrefix("absent_")
            .publisher(new RecordingPublisher())
            .build();

    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("absent_outbox_events")
        .hasMessageContaining(
            "OutboxSchema.migrate(dataSource, OutboxTables.of(\""
                + db.schema()
                + "\", \"absent_\"))")
        .hasMessageContaining(
            "`txoutbox migrate --schema " + db.schema() + " --table-prefix absent_`");
    assertThat(relay.isRunning()).isFalse();
  }

  @Test
  void twoOutboxesWithDifferentPrefixesInOneSchemaStayIndependent() throws InterruptedException {
    OutboxTables a = migrated("a_");
    OutboxTables b = migrated("b_");
    RecordingPublisher toA = new RecordingPublisher();
    RecordingPublisher toB = new RecordingPublisher();
    OutboxRelay relayA = relay("a", a, toA);
    OutboxRelay relayB = relay("b", b, toB);
    List<UUID> idsA = write(Outbox.builder().relay(relayA).build(), "x", 2);
    List<UUID> idsB = write(Outbox.builder().tables(b).build(), "x", 1);

    assertThat(relayA.admin().pendingCount()).isEqualTo(2);
    assertThat(relayB.admin().pendingCount()).isEqualTo(1);
    assertThat(relayA.runOnce()).isEqualTo(2);
    assertThat(relayB.runOnce()).isEqualTo(1);
    assertThat(relayA.runOnce()).isZero();
    assertThat(toA.published()).extracting(OutboxMessage::id).containsExactlyElementsOf(idsA);
    assertThat(toB.published()).extracting(OutboxMessage::id).containsExactlyElementsOf(idsB);
  }

  @Test
  void aWriterOfTheRelayMustNotNameAnotherPrefix() {
    OutboxRelay relay = relay("mismatch", migrated("a_"), new RecordingPublisher());
    assertThatThrownBy(() -> Outbox.builder().relay(relay).tablePrefix("b_").build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "tablePrefix(...) must be the table prefix of the relay(...) this writer feeds, 'a_',"
                + " but was 'b_'");
    assertThatThrownBy(() -> Outbox.builder().tablePrefix("B").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tablePrefix must be empty or a lower-case identifier");
  }

  @Test
  void theOrderingIndexCheckLooksForThePrefixedIndexes() {
    OutboxTables tables = migrated("bill_");
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .tables(tables)
            .publisher(new RecordingPublisher())
            .config(RelayConfig.builder().name("ordered").ordering(Ordering.PER_AGGREGATE).build())
            .build();
    closeLast.add(0, relay);
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(tables.orderingIndex() + " and " + tables.orderingDeadLetterIndex())
        .hasMessageContaining(
            "OutboxSchema.migrateOrderingIndex(dataSource, OutboxTables.of(\""
                + db.schema()
                + "\", \"bill_\"))")
        .hasMessageContaining("--table-prefix bill_ --with-ordering-index");

    OutboxSchema.migrateOrderingIndex(db.dataSource(), tables);
    relay.start();
    assertThat(relay.isRunning()).isTrue();
  }

  @Test
  void theBacklogGaugesReadThePrefixedTable() {
    OutboxTables tables = migrated("bill_");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .tables(tables)
            .publisher(new RecordingPublisher())
            .metrics(OutboxMetrics.builder(registry).refreshInterval(Duration.ofMillis(20)).build())
            .config(RelayConfig.builder().name("gauged").build())
            .build();
    closeLast.add(0, relay);
    write(Outbox.builder().relay(relay).build(), "g", 2);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                registry.get("outbox.events.pending").tag("relay", "gauged").gauge().value()
                    == 2.0);
  }

  @Test
  void theNotifyTriggerOfThePrefixWakesTheRelay() {
    OutboxTables tables = migrated("bill_");
    OutboxSchema.migrateNotifyTrigger(db.dataSource(), tables);
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxRelay relay =
        OutboxRelay.builder()
            .dataSource(db.dataSource())
            .schema(db.schema())
            .tablePrefix("bill_")
            .publisher(publisher)
            .listenForNotifications(true)
            // Polling every 5 minutes: within the test, only a notification can publish.
            .config(
                RelayConfig.builder()
                    .name("notified-prefix")
                    .minPollInterval(Duration.ofMinutes(5))
                    .maxPollInterval(Duration.ofMinutes(5))
                    .build())
            .build();
    closeLast.add(0, relay);
    relay.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                DSL.using(db.dataSource(), SQLDialect.POSTGRES)
                        .resultQuery(
                            "select count(*) from pg_stat_activity where query = ?",
                            "LISTEN \"" + tables.notifyChannel() + "\"")
                        .fetchSingle(0, Integer.class)
                    == 1);

    // A writer "in another process": no in-process wake-up, only the trigger's notification. Two
    // events one after the other: the first might meet the listener's catch-up wake-up.
    Outbox elsewhere = Outbox.builder().tables(tables).build();
    for (int i = 0; i < 2; i++) {
      UUID id = write(elsewhere, "n", 1).get(0);
      await().atMost(Duration.ofSeconds(30)).until(() -> publisher.publishCounts().containsKey(id));
    }
  }

  @Test
  void tableUpkeepReadsThePrefixedTableItsAdminIsFor() throws Exception {
    OutboxTables bill = migrated("bill_");
    OutboxTables ship = migrated("ship_");
    // One outbox's events table without autovacuum, and a thousand rows in it, the other empty.
    db.execute(
        "ALTER TABLE " + db.schema() + ".bill_outbox_events SET (autovacuum_enabled = false)");
    write(Outbox.builder().tables(bill).build(), "b", 1_000);

    TableUpkeep billing =
        OutboxAdmin.builder().dataSource(db.dataSource()).tables(bill).build().tableUpkeep();
    TableUpkeep shipping =
        OutboxAdmin.builder().dataSource(db.dataSource()).tables(ship).build().tableUpkeep();

    assertThat(billing.autovacuum()).isFalse();
    assertThat(billing.sizeBytes()).isGreaterThan(shipping.sizeBytes());
    assertThat(shipping.autovacuum())
        .as("the server's own setting: no storage parameter turns it off")
        .isEqualTo(serverRunsAutovacuum());
    assertThat(shipping.lastVacuum()).isEmpty();

    db.execute("VACUUM " + db.schema() + ".ship_outbox_events");
    assertThat(
            OutboxAdmin.builder()
                .dataSource(db.dataSource())
                .tables(ship)
                .build()
                .tableUpkeep()
                .lastVacuum())
        .isPresent();
  }

  private boolean serverRunsAutovacuum() {
    return DSL.using(db.dataSource(), SQLDialect.POSTGRES)
        .fetchSingle(
            "select current_setting('autovacuum')::boolean"
                + " and current_setting('track_counts')::boolean")
        .get(0, Boolean.class);
  }
}
