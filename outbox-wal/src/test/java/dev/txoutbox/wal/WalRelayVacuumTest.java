package dev.txoutbox.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.CompletionMode;
import dev.txoutbox.Outbox;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code RelayConfig.vacuumInterval()} on the WAL relay: its events table gets a plain VACUUM at
 * that interval, run by the same code as the polling relay's ({@code RelayVacuumTest} in
 * outbox-core), with or without the sweeper, from one thread: the relay's own, none of the sweeper.
 * Before, a WAL relay without its sweeper left the setting unused, and one with it ran the vacuum
 * only through the sweeper. The logical test server runs autovacuum, which counts apart from the
 * manual runs read here.
 */
class WalRelayVacuumTest {

  private final WalTestKit kit = new WalTestKit();

  @AfterEach
  void close() throws Exception {
    kit.close();
  }

  @ParameterizedTest(name = "sweeper {0}")
  @ValueSource(booleans = {false, true})
  void theWalRelayVacuumsItsEventsTableAtTheIntervalWithOrWithoutItsSweeper(boolean sweeper) {
    OutboxTables tables = LogicalServer.freshOutbox("vac_");
    String name = sweeper ? "wal-vacuum-swept" : "wal-vacuum";
    RecordingPublisher publisher = new RecordingPublisher();
    WalRelay relay =
        kit.relay(
            WalTestKit.builder(
                    tables,
                    publisher,
                    RelayConfig.builder()
                        .name(name)
                        .batchSize(10)
                        .completionMode(CompletionMode.DELETE)
                        .vacuumInterval(Duration.ofMillis(200))
                        .build())
                .sweeper(sweeper)
                .sweepInterval(Duration.ofSeconds(1)));
    long before = vacuumCount(tables);

    relay.start();
    List<UUID> ids = WalTestKit.write(tables, Outbox.builder().tables(tables).build(), "a", 3);

    await().atMost(WalTestKit.WAIT).until(() -> publisher.publishedIds().containsAll(ids));
    await().atMost(WalTestKit.WAIT).until(() -> vacuumCount(tables) >= before + 3);
    assertThat(alive("outbox-relay-" + name + "-vacuum")).isTrue();
    assertThat(alive("outbox-relay-" + name + "-sweeper-vacuum"))
        .as("the sweeper runs no vacuum of its own")
        .isFalse();

    relay.close(Duration.ofSeconds(10));

    await().atMost(WalTestKit.WAIT).until(() -> !alive("outbox-relay-" + name + "-vacuum"));
  }

  private static boolean alive(String thread) {
    return Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().equals(thread) && t.isAlive());
  }

  /** The events table's manual VACUUM count, as the statistics have it now. */
  private static long vacuumCount(OutboxTables tables) {
    // A statistics view outside the generated model, in a transaction of its own each time.
    return LogicalServer.dsl(tables)
        .fetchOne(
            "SELECT vacuum_count FROM pg_stat_user_tables WHERE schemaname = ? AND relname = ?",
            tables.schema(),
            tables.eventsTable())
        .get(0, Long.class);
  }
}
