package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.time.Instant;
import java.util.Map;

/** Outbox messages for tests. */
final class Messages {

  private Messages() {}

  static OutboxMessage message(String aggregateType, String aggregateId, String payload) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(aggregateType + ".happened")
        .payload(payload)
        .headers(Map.of("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        .createdAt(Instant.parse("2026-11-30T06:50:38.123Z"))
        .build();
  }

  static OutboxMessage message(String aggregateType, String aggregateId) {
    return message(aggregateType, aggregateId, "{\"id\":\"" + aggregateId + "\"}");
  }
}
