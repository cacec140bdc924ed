package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.Ordering;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What start() refuses, with a message that says what to do. */
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
    WalRelay relay =
        kit.relay(
            tables,
            new RecordingPublisher(),
            WalTestKit.config(10).toBuilder().ordering(ordering).build());
    assertThatThrownBy(relay::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(tables.orderingIndex())
        .hasMessageContaining("migrateOrderingIndex")
        .hasMessageContaining("--with-ordering-index");
    assertThatThrownBy(relay::start).hasMessageContaining("already started");
  }
}
