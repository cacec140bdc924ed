package dev.txoutbox.wal;

import static dev.txoutbox.schema.model.Tables.OUTBOX_EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.RelayConfig;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.testing.RecordingPublisher;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A kill -9 of a JVM running the WAL relay mid-stream: nothing lost, duplicates bounded. */
class WalRelayKillTest {

  @Test
  void aKilledRelayLosesNothing(@TempDir Path dir) throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("kl_");
    // The publication and the slot first, so that the slot holds every event written next.
    WalRelay setup =
        WalRelay.builder()
            .sweeper(false) // no polling relay behind it in this test
            .dataSource(LogicalServer.dataSource())
            .replicationUrl(LogicalServer.jdbcUrl(), LogicalServer.credentials())
            .tables(tables)
            .publisher(new RecordingPublisher())
            .build();
    setup.start();
    setup.close();

    Outbox outbox = Outbox.builder().tables(tables).build();
    DSLContext dsl = LogicalServer.dsl(tables);
    List<UUID> ids = new ArrayList<>();
    for (int t = 0; t < 30; t++) {
      int tt = t;
      dsl.transaction(
          c -> {
            for (int e = 0; e < 10; e++) {
              ids.add(outbox.record(c.dsl(), OutboxEvent.of("order", "o" + tt, "e" + e, "{}")));
            }
          });
    }

    Path published = dir.resolve("published.txt");
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                WalRelayMain.class.getName(),
                LogicalServer.jdbcUrl(),
                tables.schema(),
                tables.tablePrefix(),
                published.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> Files.exists(published) && lines(published).size() >= 50);
    } finally {
      child.destroyForcibly(); // SIGKILL: no shutdown hook, no confirmation
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    List<UUID> fromChild = lines(published);
    assertThat(fromChild.size()).isLessThan(ids.size());

    RecordingPublisher next = new RecordingPublisher();
    WalRelay restarted =
        WalRelay.builder()
            .sweeper(false) // no polling relay behind it in this test
            .dataSource(LogicalServer.dataSource())
            .replicationUrl(LogicalServer.jdbcUrl(), LogicalServer.credentials())
            .tables(tables)
            .publisher(next)
            .config(RelayConfig.builder().batchSize(10).build())
            .build();
    try {
      restarted.start();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> dsl.fetchCount(OUTBOX_EVENTS, OUTBOX_EVENTS.PROCESSED_AT.isNull()) == 0);
    } finally {
      restarted.close();
    }
    Map<UUID, Integer> counts = new HashMap<>();
    fromChild.forEach(id -> counts.merge(id, 1, Integer::sum));
    next.publishedIds().forEach(id -> counts.merge(id, 1, Integer::sum));
    assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(ids);
    long duplicates = counts.values().stream().filter(n -> n > 1).count();
    // At most the batch in flight when the child died: acknowledged by the "broker", not committed.
    assertThat(duplicates).as("duplicates").isBetween(0L, 10L);
    assertThat(counts.values()).allMatch(n -> n <= 2);
    System.out.println(
        "WalRelayKillTest: child published "
            + fromChild.size()
            + " before SIGKILL, restarted relay "
            + next.publishedIds().size()
            + ", duplicates "
            + duplicates);
  }

  private static List<UUID> lines(Path file) throws java.io.IOException {
    List<UUID> out = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (line.length() == 36) {
        out.add(UUID.fromString(line));
      }
    }
    return out;
  }
}
