package dev.txoutbox.sqs;

import dev.txoutbox.spi.OutboxMessage;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/** Outbox messages for tests. */
final class Messages {

  private static final AtomicLong SEQUENCE = new AtomicLong();

  private Messages() {}

  static OutboxMessage message(String aggregateType, String aggregateId, String payload) {
    return message(aggregateType, aggregateId, payload, Map.of());
  }

  static OutboxMessage message(
      String aggregateType, String aggregateId, String payload, Map<String, String> headers) {
    return new OutboxMessage(
        UUID.randomUUID(),
        SEQUENCE.incrementAndGet(),
        aggregateType,
        aggregateId,
        aggregateType + ".happened",
        payload,
        headers,
        Instant.now().truncatedTo(ChronoUnit.MILLIS),
        1);
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
