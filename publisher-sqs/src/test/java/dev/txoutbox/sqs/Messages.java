package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Outbox messages for tests. */
final class Messages {

  private Messages() {}

  static OutboxMessage message(String aggregateType, String aggregateId, String payload) {
    return message(aggregateType, aggregateId, payload, Map.of());
  }

  static OutboxMessage message(
      String aggregateType, String aggregateId, String payload, Map<String, String> headers) {
    return TestMessages.message()
        .aggregateType(aggregateType)
        .aggregateId(aggregateId)
        .eventType(aggregateType + ".happened")
        .payload(payload)
        .headers(headers)
        .build();
  }

  /** {@code count} events of one aggregate, payload {@code {"i":n}}. */
  static List<OutboxMessage> ofAggregate(String aggregateType, String aggregateId, int count) {
    List<OutboxMessage> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(message(aggregateType, aggregateId, "{\"i\":" + i + "}"));
    }
    return list;
  }

  /**
   * {@code count} events, each of an aggregate of its own ({@code a-n}), payload {@code {"i":n}}.
   */
  static List<OutboxMessage> ofDistinctAggregates(String aggregateType, int count) {
    List<OutboxMessage> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(message(aggregateType, "a-" + i, "{\"i\":" + i + "}"));
    }
    return list;
  }

  /** A JSON payload of exactly {@code bytes} UTF-8 bytes. */
  static String payloadOfBytes(int bytes) {
    return "\"" + "p".repeat(bytes - 2) + "\"";
  }
}
