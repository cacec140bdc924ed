package dev.txoutbox.wal;

import static dev.txoutbox.wal.WalTestKit.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.txoutbox.Outbox;
import dev.txoutbox.OutboxEvent;
import dev.txoutbox.schema.OutboxTables;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.RecordingPublisher;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Broker and database text in the WAL relay's log lines is masked and escaped as the polling
 * relay's: no password shows, no line is split.
 */
class WalRelayLogTest {

  private static final String HOSTILE = "refused by amqp://user:pw@host:5672/v\nFORGED ERROR line";

  private final WalTestKit kit = new WalTestKit();
  private final CapturedLog log = new CapturedLog();

  @AfterEach
  void closeAll() throws Exception {
    log.close();
    kit.close();
  }

  @Test
  void theRetryTheDeadLetterAndTheHoldLinesMaskAndEscapeBrokerText() throws Exception {
    OutboxTables tables = LogicalServer.freshOutbox("log_");
    Outbox outbox = Outbox.builder().tables(tables).build();
    RecordingPublisher publisher = new RecordingPublisher();
    publisher.answer(
        m ->
            switch (m.aggregateId()) {
              case "retry" -> PublishResult.retryable(HOSTILE);
              case "dead" -> PublishResult.permanent(HOSTILE);
              case "hold" -> PublishResult.brokerUnavailable(HOSTILE);
              default -> PublishResult.published();
            });
    WalRelay relay = kit.relay(tables, publisher, WalTestKit.config(100));
    relay.start();
    for (String aggregate : List.of("retry", "dead")) {
      LogicalServer.dsl(tables)
          .transaction(
              c ->
                  outbox.record(
                      c.dsl(), OutboxEvent.of("order", aggregate, "type\nFORGED type", "{}")));
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                log.lines().stream().anyMatch(l -> l.contains("dead letter"))
                    && log.lines().stream().anyMatch(l -> l.contains("retries it")));
    // A batch of its own, so that the broker is unavailable to all of it: the relay holds.
    LogicalServer.dsl(tables)
        .transaction(c -> outbox.record(c.dsl(), OutboxEvent.of("order", "hold", "e", "{}")));
    await()
        .atMost(WAIT)
        .until(() -> log.lines().stream().anyMatch(l -> l.contains("holding the slot")));
    List<String> relevant =
        log.lines().stream()
            .filter(
                l ->
                    l.contains("dead letter")
                        || l.contains("retries it")
                        || l.contains("holding the slot"))
            .toList();
    assertThat(relevant).hasSize(3);
    assertThat(relevant)
        .allSatisfy(
            l ->
                assertThat(l)
                    .doesNotContain("pw")
                    .doesNotContain("\n")
                    .contains("amqp://user:")
                    .contains("\\nFORGED ERROR line"));
    assertThat(relevant.stream().filter(l -> l.contains("dead letter")).findFirst().orElseThrow())
        .contains("type\\nFORGED type");
  }
}
