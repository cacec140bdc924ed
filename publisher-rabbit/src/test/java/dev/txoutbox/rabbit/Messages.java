package dev.txoutbox.rabbit;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.util.ArrayList;
import java.util.List;

/** Outbox messages for the tests. */
final class Messages {

  private Messages() {}

  /** An {@code order} event of {@code eventType} with a small JSON payload. */
  static OutboxMessage event(String eventType) {
    OutboxMessage event = TestMessages.message().eventType(eventType).build();
    return event.toBuilder().payload("{\"n\":" + event.sequence() + "}").build();
  }

  static OutboxMessage event(
      String aggregateType, String aggregateId, String eventType, String payload) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(eventType)
        .payload(payload)
        .build();
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
