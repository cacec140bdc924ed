package dev.txoutbox.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.DeadLetter;
import dev.txoutbox.DeadLetterGroup;
import dev.txoutbox.OutboxStatus;
import dev.txoutbox.TableUpkeep;
import dev.txoutbox.schema.OutboxTables;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The {@code --json} outputs, byte for byte as the hand-written writer before Jackson wrote them.
 */
class JsonTest {

  private static final UUID ID = UUID.fromString("bd7718c4-7529-4d1c-9923-692fe01d5f85");

  @Test
  void statusKeepsItsKeyOrderAndWritesAnAbsentAgeAsNull() {
    assertThat(
            StatusCommand.json(
                OutboxTables.in("billing"),
                new OutboxStatus(5, 4, 3, Optional.empty(), 1830),
                new TableUpkeep(
                    40_960, 12, 7, Optional.of(Instant.parse("2026-12-07T10:00:00Z")), false),
                null))
        .isEqualTo(
            "{\"schema\":\"billing\",\"pending\":5,\"due_now\":4,\"dead_letters\":3,"
                + "\"oldest_pending_age_seconds\":null,\"processed_last_minute\":1830,"
                + "\"events_table\":{\"size_bytes\":40960,\"live_tuples\":12,\"dead_tuples\":7,"
                + "\"last_vacuum\":\"2026-12-07T10:00:00Z\",\"autovacuum\":false}}");
    assertThat(
            StatusCommand.json(
                OutboxTables.in("billing"),
                new OutboxStatus(0, 0, 0, Optional.empty(), 0),
                new TableUpkeep(8_192, 0, 0, Optional.empty(), true),
                null))
        .endsWith(
            "\"events_table\":{\"size_bytes\":8192,\"live_tuples\":0,\"dead_tuples\":0,"
                + "\"last_vacuum\":null,\"autovacuum\":true}}");
    assertThat(age(Duration.ofMillis(252_100))).isEqualTo("252.1");
    assertThat(age(Duration.ofMillis(1))).isEqualTo("0.001");
    assertThat(age(Duration.ofSeconds(10_000_000))).isEqualTo("1.0E7");
    assertThat(age(Duration.ofMillis(1500).plusNanos(999_999))).isEqualTo("1.5");
  }

  @Test
  void deadLettersEscapeEveryControlCharacterInLowerCaseHexAndKeepThePayloadAsItIs() {
    DeadLetter d =
        DeadLetter.builder()
            .id(ID)
            .aggregateType("order")
            .aggregateId("o-1\r\u009b2J")
            .eventType("order\u001b[31m.paid\nforged-line\u007f\u202e é ✓")
            .payload("{\"n\": [1, 2.50]}")
            .headers(Map.of("trace", "a/b\u2028"))
            .attempts(3)
            .createdAt(Instant.parse("2024-05-01T10:00:00.123456Z"))
            .deadLetteredAt(Instant.parse("2024-05-01T10:05:00Z"))
            .lastError("say \"hi\" \\ \t\b\f\u0000")
            .build();

    assertThat(DeadLetterFormat.json(List.of(d)))
        .isEqualTo(
            "[{\"id\":\"bd7718c4-7529-4d1c-9923-692fe01d5f85\",\"aggregate_type\":\"order\","
                + "\"aggregate_id\":\"o-1\\r\\u009b2J\","
                + "\"event_type\":\"order\\u001b[31m.paid\\nforged-line\\u007f\\u202e é ✓\","
                + "\"attempts\":3,\"created_at\":\"2024-05-01T10:00:00.123456Z\","
                + "\"dead_lettered_at\":\"2024-05-01T10:05:00Z\","
                + "\"last_error\":\"say \\\"hi\\\" \\\\ \\t\\b\\f\\u0000\","
                + "\"headers\":{\"trace\":\"a/b\\u2028\"},\"raw_headers\":null,"
                + "\"payload\":{\"n\": [1, 2.50]}}]");
  }

  @Test
  void anUnreadableDeadLetterHasNullsWhereNothingCouldBeRead() {
    DeadLetter d =
        DeadLetter.builder()
            .id(ID)
            .aggregateType("order")
            .aggregateId("o-1")
            .eventType("order.paid")
            .payload(null)
            .headers(Map.of())
            .rawHeaders("[1,2]")
            .attempts(0)
            .createdAt(Instant.parse("2024-05-01T10:00:00Z"))
            .deadLetteredAt(Instant.parse("2024-05-01T10:05:00Z"))
            .lastError(null)
            .build();

    assertThat(DeadLetterFormat.json(List.of(d)))
        .endsWith(
            "\"last_error\":null,\"headers\":{},\"raw_headers\":\"[1,2]\",\"payload\":null}]");
    assertThat(DeadLetterFormat.json(List.of())).isEqualTo("[]");
  }

  @Test
  void groupsKeepTheirKeyOrderAndMaskTheirErrors() {
    DeadLetterGroup g =
        new DeadLetterGroup(
            "order.paid",
            "connect to amqp://app:****@h failed",
            7,
            Instant.parse("2024-05-01T10:05:00Z"),
            "connect to amqp://app:Gr9Secret@h failed");

    assertThat(DeadLetterFormat.groupsJson(List.of(g)))
        .isEqualTo(
            "[{\"event_type\":\"order.paid\","
                + "\"error_fingerprint\":\"connect to amqp://app:****@h failed\",\"count\":7,"
                + "\"newest\":\"2024-05-01T10:05:00Z\","
                + "\"sample_error\":\"connect to amqp://app:****@h failed\"}]");
  }

  private static String age(Duration age) {
    String json =
        StatusCommand.json(
            OutboxTables.in("s"),
            new OutboxStatus(1, 1, 0, Optional.of(age), 0),
            new TableUpkeep(0, 0, 0, Optional.empty(), true),
            null);
    String key = "\"oldest_pending_age_seconds\":";
    int from = json.indexOf(key) + key.length();
    return json.substring(from, json.indexOf(',', from));
  }
}
