package dev.txoutbox.rabbit;

import dev.txoutbox.spi.OutboxMessage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/** Outbox messages for the tests. */
final class TestMessages {

  private static final AtomicLong SEQUENCE = new AtomicLong();

  private TestMessages() {}

  /** An {@code order} event of {@code eventType} with a small JSON payload. */
  static OutboxMessage event(String eventType) {
    return event("order", "o-1", eventType, "{\"n\":" + SEQUENCE.get() + "}");
  }

  static OutboxMessage event(
      String aggregateType, String aggregateId, String eventType, String payload) {
    return new OutboxMessage(
        UUID.randomUUID(),
        SEQUENCE.incrementAndGet(),
        aggregateType,
        aggregateId,
        eventType,
        payload,
        Map.of(),
        Instant.now().truncatedTo(ChronoUnit.MILLIS),
        1);
  }

  /** {@code count} events of {@code eventType}. */
  static List<OutboxMessage> events(int count, String eventType) {
    List<OutboxMessage> batch = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      batch.add(event(eventType));
    }
    return batch;
  }

  /** The event ids of {@code messages}, as strings. */
  static List<String> ids(List<OutboxMessage> messages) {
    return messages.stream().map(m -> m.id().toString()).toList();
  }
}
