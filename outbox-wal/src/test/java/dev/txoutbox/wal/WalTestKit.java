package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Backoff;
import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.OutboxRelay;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.RelayListener;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.Publisher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What the WAL relay's tests share: relays on the logical server, closed with the kit, the polling
 * relay alongside, and writing and counting events.
 */
final class WalTestKit implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(30);

  /** A listener noting what it hears of broker outages, in order. */
  static final class OutageListener implements RelayListener {
    final List<String> heard = new CopyOnWriteArrayList<>();

    @Override
    public void brokerUnavailable(String reason) {
      heard.add("unavailable: " + reason);
    }

    @Override
    public void brokerAvailable(Duration outage) {
      heard.add("available");
    }
  }

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final List<String> slots = new ArrayList<>();

  /** A builder of a relay on the logical server, reconnecting quickly. */
  static WalRelayBuilder builder(OutboxTables tables, Publisher publisher, RelayConfig config) {
    return builder(LogicalServer.dataSource(), LogicalServer.jdbcUrl(), tables, publisher, config);
  }

  /** A builder of a relay on the server of {@code dataSource} and {@code url}, as postgres. */
  static WalRelayBuilder builder(
      DataSource dataSource,
      String url,
      OutboxTables tables,
      Publisher publisher,
      RelayConfig config) {
    return WalRelay.builder()
        .dataSource(dataSource)
        .replicationUrl(url, LogicalServer.credentials())
        .tables(tables)
        .publisher(publisher)
        .config(config)
        .reconnectDelay(Duration.ofMillis(50))
        .sweeper(false); // the tests that need one run it themselves (polling(..))
  }

  /** A relay built by {@code builder}, closed with the kit. */
  WalRelay relay(WalRelayBuilder builder) {
    return adopt(builder.build());
  }

  /** {@code relay}, made elsewhere (by an injector), closed with the kit and its slot dropped. */
  WalRelay adopt(WalRelay relay) {
    toClose.add(relay);
    slots.add(relay.slotName());
    return relay;
  }

  /** {@code closeable}, closed with the kit (before what was given to the kit earlier). */
  <T extends AutoCloseable> T closing(T closeable) {
    toClose.add(closeable);
    return closeable;
  }

  WalRelay relay(OutboxTables tables, Publisher publisher, RelayConfig config) {
    return relay(builder(tables, publisher, config));
  }

  /** Batches of {@code batchSize}, retries after 1 ms. */
  static RelayConfig config(int batchSize) {
    return RelayConfig.builder()
        .name("wal-test")
        .batchSize(batchSize)
        .backoff(Backoff.exponential(Duration.ofMillis(1), Duration.ofMillis(1)).withJitter(0))
        .shutdownTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** The polling relay from outbox-core on the same table, the WAL relay's sweeper. */
  OutboxRelay polling(OutboxTables tables, Publisher publisher, Clock clock, Ordering ordering) {
    OutboxRelay polling =
        OutboxRelay.builder()
            .dataSource(LogicalServer.dataSource())
            .tables(tables)
            .publisher(publisher)
            .clock(clock)
            .config(RelayConfig.builder().name("sweeper").ordering(ordering).build())
            .build();
    toClose.add(polling);
    return polling;
  }

  OutboxRelay polling(OutboxTables tables, Publisher publisher, Clock clock) {
    return polling(tables, publisher, clock, Ordering.NONE);
  }

  /** {@code n} events of {@code aggregate}, each in a transaction of its own. */
  static List<UUID> write(OutboxTables tables, Outbox outbox, String aggregate, int n) {
    List<UUID> ids = new ArrayList<>();
    DSLContext dsl = LogicalServer.dsl(tables);
    for (int i = 0; i < n; i++) {
      int k = i;
      dsl.transaction(
          c -> ids.add(outbox.record(c.dsl(), OutboxEvent.of("order", aggregate, "e" + k, "{}"))));
    }
    return ids;
  }

  /** Events not processed (pending or dead letters). */
  static int pending(OutboxTables tables) {
    return LogicalServer.dsl(tables).fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNull());
  }

  /** Events the relays touched without publishing: an attempt or a time to wait for. */
  static int touched(OutboxTables tables) {
    return LogicalServer.dsl(tables)
        .fetchCount(
            OUTBOX_EVENTS, OUTBOX_EVENTS.ATTEMPTS.gt(0).or(OUTBOX_EVENTS.RETRY_AFTER.isNotNull()));
  }

  static List<UUID> concat(List<UUID> a, List<UUID> b) {
    List<UUID> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  @Override
  public void close() throws Exception {
    Collections.reverse(toClose);
    for (AutoCloseable c : toClose) {
      c.close();
    }
    toClose.clear();
    // The server has a few slots only: free those of the closed relays once they are released.
    for (String slot : slots) {
      dropSlot(LogicalServer.dataSource(), slot);
    }
    slots.clear();
  }

  /** Drops {@code slot} of the server of {@code dataSource} once no stream holds it. */
  static void dropSlot(DataSource dataSource, String slot) {
    await().atMost(WAIT).until(() -> dropInactive(dataSource, slot));
  }

  /** Drops {@code slot} unless a stream still holds it; true if it is gone. */
  private static boolean dropInactive(DataSource dataSource, String slot) {
    DSLContext dsl = DSL.using(dataSource, SQLDialect.POSTGRES);
    // Slot functions and pg_replication_slots: no jOOQ model for them.
    dsl.execute(
        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
            + " WHERE slot_name = ? AND NOT active",
        slot);
    return dsl.fetchCount(
            DSL.table(DSL.name("pg_replication_slots")), DSL.field(DSL.name("slot_name")).eq(slot))
        == 0;
  }
}
