package dev.txoutbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.testing.TestMessages;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class KafkaMessageMapperTest {

  @Test
  void keyIsTheAggregateIdAndValueThePayloadBytes() {
    OutboxMessage message = Messages.message("order", "o-42", "{\"total\":\"9.99 \u20ac\"}");

    ProducerRecord<String, byte[]> record = KafkaMessageMapper.toRecord("shop.order", message);

    assertThat(record.topic()).isEqualTo("shop.order");
    assertThat(record.key()).isEqualTo("o-42");
    assertThat(new String(record.value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"total\":\"9.99 \u20ac\"}");
    assertThat(record.partition()).isNull();
    assertThat(record.timestamp()).isNull();
  }

  @Test
  void carriesTheIdentityHeadersThenTheStoredHeaders() {
    OutboxMessage message = Messages.message("order", "o-42");

    ProducerRecord<String, byte[]> record = KafkaMessageMapper.toRecord("order", message);

    assertThat(headers(record))
        .containsExactly(
            OutboxHeaders.EVENT_ID + "=" + message.id(),
            OutboxHeaders.EVENT_TYPE + "=order.happened",
            OutboxHeaders.AGGREGATE_TYPE + "=order",
            OutboxHeaders.AGGREGATE_ID + "=o-42",
            OutboxHeaders.CREATED_AT + "=2026-11-30T06:50:38.123000Z",
            "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void storedHeadersCannotShadowTheEventIdentity() {
    UUID id = UUID.randomUUID();
    OutboxMessage message =
        TestMessages.message()
            .id(id)
            .headers(Map.of(OutboxHeaders.EVENT_ID, "forged", "tenant", "acme"))
            .createdAt(Instant.parse("2026-01-01T00:00:00Z"))
            .build();

    List<String> headers = headers(KafkaMessageMapper.toRecord("order", message));

    assertThat(headers)
        .contains(OutboxHeaders.EVENT_ID + "=" + id, "tenant=acme")
        .doesNotContain(OutboxHeaders.EVENT_ID + "=forged");
  }

  private static List<String> headers(ProducerRecord<String, byte[]> record) {
    List<String> headers = new ArrayList<>();
    for (Header header : record.headers()) {
      headers.add(header.key() + "=" + new String(header.value(), StandardCharsets.UTF_8));
    }
    return headers;
  }
}
