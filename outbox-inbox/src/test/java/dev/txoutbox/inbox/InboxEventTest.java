package dev.txoutbox.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxHeaders;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InboxEventTest {

  private static final UUID ID = UUID.fromString("0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10");

  @Test
  void readsTheIdentityHeadersAndTheTraceContext() {
    Map<String, String> headers = identity(ID.toString());
    headers.put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    headers.put("tenant", "acme");

    InboxEvent event = InboxEvent.from(headers);
    headers.clear(); // copied

    assertThat(event.eventId()).isEqualTo(ID);
    assertThat(event.eventType()).isEqualTo("order.created");
    assertThat(event.aggregateType()).isEqualTo("order");
    assertThat(event.aggregateId()).isEqualTo("o-1");
    assertThat(event.createdAt()).isEqualTo(Instant.parse("2026-11-30T06:50:38.123Z"));
    assertThat(event.traceparent())
        .contains("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(event.tracestate()).isEmpty();
    assertThat(event.header("tenant")).contains("acme");
    assertThat(event.headers()).hasSize(7);
  }

  /** A consumer that compared the type with equals booked 0 of 20 events while it was Optional. */
  @Test
  void anEventTypeComparedWithEqualsMatchesTheType() {
    int booked = 0;
    for (int i = 0; i < 20; i++) {
      InboxEvent event = InboxEvent.from(identity(UUID.randomUUID().toString()));
      if ("order.created".equals(event.eventType())) {
        booked++;
      }
    }

    assertThat(booked).isEqualTo(20);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        OutboxHeaders.EVENT_TYPE,
        OutboxHeaders.AGGREGATE_TYPE,
        OutboxHeaders.AGGREGATE_ID,
        OutboxHeaders.CREATED_AT
      })
  void refusesAMessageWithoutAnIdentityHeader(String missing) {
    Map<String, String> headers = identity(ID.toString());
    headers.remove(missing);

    assertThatThrownBy(() -> InboxEvent.from(headers))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("headers must carry " + missing + " but it was missing");
  }

  @Test
  void refusesAMessageWithoutAnEventId() {
    assertThatThrownBy(() -> InboxEvent.from(Map.of(OutboxHeaders.EVENT_TYPE, "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("headers must carry outbox-event-id but it was missing");
  }

  @Test
  void refusesAnEventIdThatIsNotAUuid() {
    assertThatThrownBy(() -> InboxEvent.from(identity("42")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "outbox-event-id must be a UUID in canonical form (8-4-4-4-12 hex digits, such as"
                + " 0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10) but was '42'");
  }

  /** Texts {@link UUID#fromString} reads as an id (the first seven) or that are not one at all. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "1-1-1-1-1",
        "+1-1-1-1-1",
        "0-0-0-0-0",
        "\uFF10b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10",
        "0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a1\u0661",
        "0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a1",
        "0b9e6f434-f7a-4bd1-9d38-5b3f7f1f2a10",
        "",
        "0b9e6f434f7a4bd19d385b3f7f1f2a10",
        " 0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10",
        "0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10 ",
        "0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a100",
        "{0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10}",
        "urn:uuid:0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a10",
        "0b9e6f43-4f7a-4bd1-9d38-5b3f7f1f2a1g",
        "0b9e6f43_4f7a-4bd1-9d38-5b3f7f1f2a10"
      })
  void refusesAnEventIdThatIsNotACanonicalUuid(String id) {
    assertThatThrownBy(() -> InboxEvent.from(identity(id)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("outbox-event-id must be a UUID in canonical form");
  }

  @Test
  void aHostileEventIdIsShownWithItsControlCharactersEscaped() {
    assertThatThrownBy(() -> InboxEvent.from(identity("\u001b[2J\nforged line")))
        .hasMessageEndingWith("but was '\\u001b[2J\\nforged line'");
  }

  @Test
  void readsAnUpperCaseEventIdAsTheSameId() {
    assertThat(InboxEvent.from(identity(ID.toString().toUpperCase(Locale.ROOT))).eventId())
        .isEqualTo(ID);
    assertThat(InboxEvent.from(identity("00000000-0000-0000-0000-000000000000")).eventId())
        .isEqualTo(new UUID(0, 0));
  }

  @Test
  void refusesACreatedAtThatIsNotAnInstant() {
    Map<String, String> headers = identity(ID.toString());
    headers.put(OutboxHeaders.CREATED_AT, "yesterday");

    assertThatThrownBy(() -> InboxEvent.from(headers))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("outbox-created-at must be an ISO-8601 instant but was 'yesterday'");
  }

  /** The five identity headers every txoutbox publisher writes. */
  private static Map<String, String> identity(String eventId) {
    Map<String, String> headers = new HashMap<>();
    headers.put(OutboxHeaders.EVENT_ID, eventId);
    headers.put(OutboxHeaders.EVENT_TYPE, "order.created");
    headers.put(OutboxHeaders.AGGREGATE_TYPE, "order");
    headers.put(OutboxHeaders.AGGREGATE_ID, "o-1");
    headers.put(OutboxHeaders.CREATED_AT, "2026-11-30T06:50:38.123000Z");
    return headers;
  }
}
