package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Ordering;
import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxSchema;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What start() refuses, with a message that says what to do; a refused start can be repeated. */
class WalRelayStartTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  @Test
  void aClosedRelayDoesNotStart() {
    OutboxTables tables = LogicalServer.freshOutbox("sc_");
    WalRelay relay = kit.relay(tables, new RecordingPublisher(), WalTestKit.config(10));
    relay.close();
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was closed");
  }

  @ParameterizedTest
  @EnumSource(
      value = Ordering.class,
      names = {"PER_AGGREGATE", "PER_AGGREGATE_SKIP_DEAD_LETTERS"})
  void anOrderedRelayDoesNotStartWithoutTheOrderingIndexes(Ordering ordering) {
    OutboxTables tables = LogicalServer.freshOutbox("si_");
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay =
        kit.relay(tables, publisher, WalTestKit.config(10).toBuilder().ordering(ordering).build());
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(tables.orderingIndex())
        .hasMessageContaining("migrateOrderingIndex")
        .hasMessageContaining("--with-ordering-index");
    // Nothing was started: once the indexes are there, the same relay starts and publishes.
    OutboxSchema.migrateOrderingIndex(LogicalServer.dataSource(), tables);
    relay.start();
    assertThatThrownBy(relay::start).hasMessageContaining("already started");
    List<UUID> ids = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 2);
    await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().equals(ids));
  }
}
