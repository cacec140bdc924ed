package dev.txoutbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutboxHeadersTest {

  private static final UUID ID = UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e");

  private static OutboxMessage message(Map<String, String> stored, Instant createdAt) {
    return OutboxMessage.builder()
        .id(ID)
        .sequence(7)
        .aggregateType("order")
        .aggregateId("order-42")
        .eventType("order.created")
        .payload("{}")
        .headers(stored)
        .createdAt(createdAt)
        .attempt(1)
        .build();
  }

  @Test
  void putsTheIdentityHeadersFirstThenTheStoredHeadersInTheirOrder() {
    OutboxMessage message =
        message(
            Map.of("traceparent", "00-abc-def-01", "tenant", "acme", "b", "2", "a", "1"),
            Instant.parse("2026-11-30T06:50:38.123Z"));

    Map<String, String> headers = OutboxHeaders.of(message);

    List<String> expectedOrder =
        new ArrayList<>(
            List.of(
                OutboxHeaders.EVENT_ID,
                OutboxHeaders.EVENT_TYPE,
                OutboxHeaders.AGGREGATE_TYPE,
                OutboxHeaders.AGGREGATE_ID,
                OutboxHeaders.CREATED_AT));
    expectedOrder.addAll(message.headers().keySet());
    assertThat(headers.keySet()).containsExactlyElementsOf(expectedOrder);
    assertThat(headers)
        .containsEntry(OutboxHeaders.EVENT_ID, ID.toString())
        .containsEntry(OutboxHeaders.EVENT_TYPE, "order.created")
        .containsEntry(OutboxHeaders.AGGREGATE_TYPE, "order")
        .containsEntry(OutboxHeaders.AGGREGATE_ID, "order-42")
        .containsEntry(OutboxHeaders.CREATED_AT, "2026-11-30T06:50:38.123000Z")
        .containsAllEntriesOf(message.headers());
  }

  @Test
  void dropsStoredHeadersWithReservedNames() {
    OutboxMessage message =
        message(
            Map.of(
                OutboxHeaders.EVENT_ID,
                "forged-id",
                OutboxHeaders.EVENT_TYPE,
                "forged.type",
                OutboxHeaders.AGGREGATE_TYPE,
                "forged",
                OutboxHeaders.AGGREGATE_ID,
                "forged-42",
                OutboxHeaders.CREATED_AT,
                "1970-01-01T00:00:00Z",
                "tenant",
                "acme"),
            Instant.parse("2026-11-30T06:50:38Z"));

    Map<String, String> headers = OutboxHeaders.of(message);

    assertThat(headers)
        .hasSize(6)
        .containsEntry(OutboxHeaders.EVENT_ID, ID.toString())
        .containsEntry(OutboxHeaders.EVENT_TYPE, "order.created")
        .containsEntry(OutboxHeaders.AGGREGATE_TYPE, "order")
        .containsEntry(OutboxHeaders.AGGREGATE_ID, "order-42")
        .containsEntry(OutboxHeaders.CREATED_AT, "2026-11-30T06:50:38.000000Z")
        .containsEntry("tenant", "acme");
  }

  @Test
  void returnsAnUnmodifiableMap() {
    Map<String, String> headers = OutboxHeaders.of(message(Map.of(), Instant.EPOCH));

    assertThatThrownBy(() -> headers.put("x", "y"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void reservesExactlyTheFiveIdentityNames() {
    assertThat(
            List.of(
                OutboxHeaders.EVENT_ID,
                OutboxHeaders.EVENT_TYPE,
                OutboxHeaders.AGGREGATE_TYPE,
                OutboxHeaders.AGGREGATE_ID,
                OutboxHeaders.CREATED_AT))
        .allMatch(OutboxHeaders::isReserved);
    assertThat(List.of("traceparent", "outbox-event", "OUTBOX-EVENT-ID", ""))
        .noneMatch(OutboxHeaders::isReserved);
  }

  @Test
  void formatsCreatedAtWithExactlySixFractionDigits() {
    assertThat(OutboxHeaders.formatCreatedAt(Instant.parse("2026-11-30T06:50:38Z")))
        .isEqualTo("2026-11-30T06:50:38.000000Z");
    assertThat(OutboxHeaders.formatCreatedAt(Instant.parse("2026-11-30T06:50:38.123Z")))
        .isEqualTo("2026-11-30T06:50:38.123000Z");
    assertThat(OutboxHeaders.formatCreatedAt(Instant.parse("2026-11-30T06:50:38.123456Z")))
        .isEqualTo("2026-11-30T06:50:38.123456Z");
    assertThat(OutboxHeaders.formatCreatedAt(Instant.parse("2026-11-30T06:50:38.123456789Z")))
        .isEqualTo("2026-11-30T06:50:38.123456Z");
    assertThat(OutboxHeaders.formatCreatedAt(Instant.EPOCH))
        .isEqualTo("1970-01-01T00:00:00.000000Z");
    assertThat(OutboxHeaders.formatCreatedAt(Instant.parse("0999-01-02T03:04:05.000006Z")))
        .isEqualTo("0999-01-02T03:04:05.000006Z");
  }

  @Test
  void createdAtParsesBackToTheInstantTruncatedToMicroseconds() {
    List<Instant> instants =
        List.of(
            Instant.EPOCH,
            Instant.parse("2026-11-30T06:50:38Z"),
            Instant.parse("2026-11-30T06:50:38.100Z"),
            Instant.parse("2026-11-30T06:50:38.123Z"),
            Instant.parse("2026-11-30T06:50:38.000123Z"),
            Instant.parse("2026-11-30T23:59:59.999999Z"),
            Instant.parse("2026-11-30T06:50:38.123456789Z"),
            Instant.parse("0999-12-31T23:59:59.5Z"),
            Instant.parse("9999-12-31T23:59:59.999999999Z"));

    for (Instant instant : instants) {
      String formatted = OutboxHeaders.formatCreatedAt(instant);
      assertThat(formatted)
          .as("%s", instant)
          .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z");
      assertThat(Instant.parse(formatted))
          .as("%s", instant)
          .isEqualTo(instant.truncatedTo(ChronoUnit.MICROS));
    }
  }
}
