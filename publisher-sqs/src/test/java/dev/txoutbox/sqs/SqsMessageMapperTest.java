package dev.txoutbox.sqs;

import static dev.txoutbox.sqs.Messages.message;
import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/** The attribute rules documented on SqsHeaders, and the size SQS counts. */
class SqsMessageMapperTest {

  @Test
  void givesEachIdentityHeaderAndStoredHeaderItsOwnAttributeWhenTheyFit() {
    OutboxMessage m = message("order", "o-1", "{}", Map.of("traceparent", "t", "tenant", "x"));

    Map<String, MessageAttributeValue> attributes = SqsMessageMapper.map(m).attributes();

    assertThat(attributes)
        .containsOnlyKeys(
            OutboxHeaders.EVENT_ID,
            OutboxHeaders.EVENT_TYPE,
            OutboxHeaders.AGGREGATE_TYPE,
            OutboxHeaders.AGGREGATE_ID,
            OutboxHeaders.CREATED_AT,
            "traceparent",
            "tenant");
    assertThat(attributes.values()).allMatch(v -> v.dataType().equals("String"));
    assertThat(attributes.get(OutboxHeaders.EVENT_ID).stringValue()).isEqualTo(m.id().toString());
    assertThat(attributes.get(OutboxHeaders.CREATED_AT).stringValue())
        .isEqualTo(OutboxHeaders.formatCreatedAt(m.createdAt()))
        .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z");
  }

  @Test
  void fitsExactlyFiveStoredHeadersWithoutTheJsonAttribute() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      headers.put("h" + i, "v" + i);
    }

    Map<String, MessageAttributeValue> attributes =
        SqsMessageMapper.map(message("t", "a", "{}", headers)).attributes();

    assertThat(attributes).hasSize(10).doesNotContainKey(SqsHeaders.OVERFLOW_ATTRIBUTE);
  }

  @Test
  void movesTheSixthStoredHeaderAndItsNeighbourIntoTheJsonAttribute() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 6; i++) {
      headers.put("h" + i, "v" + i);
    }

    Map<String, MessageAttributeValue> attributes =
        SqsMessageMapper.map(message("t", "a", "{}", headers)).attributes();

    assertThat(attributes).hasSize(10).containsKeys("h0", "h1", "h2", "h3");
    assertThat(attributes.get(SqsHeaders.OVERFLOW_ATTRIBUTE).stringValue())
        .isEqualTo("{\"h4\":\"v4\",\"h5\":\"v5\"}");
  }

  @Test
  void keepsTraceContextAsAttributesAheadOfOtherHeaders() {
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 0; i < 8; i++) {
      headers.put("a" + i, "v");
    }
    headers.put("tracestate", "s");
    headers.put("traceparent", "p");

    Map<String, MessageAttributeValue> attributes =
        SqsMessageMapper.map(message("t", "a", "{}", headers)).attributes();

    assertThat(attributes).containsKeys("traceparent", "tracestate", "a0", "a1");
  }

  @Test
  void aHeaderWithAnUnusableNameTravelsInJsonEvenWhenThereIsRoom() {
    Map<String, MessageAttributeValue> attributes =
        SqsMessageMapper.map(message("t", "a", "{}", Map.of("x-ok", "1", "no/slash", "2")))
            .attributes();

    assertThat(attributes).containsKey("x-ok").doesNotContainKey("no/slash");
    assertThat(attributes.get(SqsHeaders.OVERFLOW_ATTRIBUTE).stringValue())
        .isEqualTo("{\"no/slash\":\"2\"}");
  }

  @Test
  void countsTheBodyAndEachAttributesNameTypeAndValueInUtf8Bytes() {
    OutboxMessage m = message("t", "a", "{\"text\":\"café ✓\"}", Map.of("h", "é"));

    SqsMessageMapper.Mapped mapped = SqsMessageMapper.map(m);

    int expected = m.payload().getBytes(StandardCharsets.UTF_8).length;
    for (Map.Entry<String, MessageAttributeValue> e : mapped.attributes().entrySet()) {
      expected +=
          e.getKey().getBytes(StandardCharsets.UTF_8).length
              + "String".length()
              + e.getValue().stringValue().getBytes(StandardCharsets.UTF_8).length;
    }
    assertThat(mapped.size()).isEqualTo(expected);
  }
}
