package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Clock;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The first start of a relay, whose slot does not exist yet, on an outbox with a backlog. */
class WalRelayFirstStartTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void closeAll() throws Exception {
    kit.close();
  }

  @Test
  void eventsPendingBeforeTheSlotExistedReachTheBrokerBeforeTheLaterEventsOfTheirAggregate() {
    OutboxTables tables = LogicalServer.freshOutbox("fs_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    // Before the slot exists: only the rows know of them.
    List<UUID> before = WalTestKit.write(tables, outbox, "a", 5);
    RecordingPublisher publisher = new RecordingPublisher();
    // Batches of 2: the backlog takes three.
    WalRelay relay = kit.relay(tables, publisher, WalTestKit.config(2));
    relay.start();
    List<UUID> after = WalTestKit.write(tables, outbox, "a", 5);
    // The sweeper alongside, started after the WAL relay as the README says.
    kit.polling(tables, publisher, Clock.systemUTC()).start();

    List<UUID> all = WalTestKit.concat(before, after);
    await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().size() >= all.size());
    assertThat(publisher.publishedIds()).containsExactlyElementsOf(all);
    assertThat(WalTestKit.pending(tables)).isZero();
  }
}
