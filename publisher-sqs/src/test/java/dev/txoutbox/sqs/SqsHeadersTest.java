package dev.txoutbox.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxHeaders;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

class SqsHeadersTest {

  private static MessageAttributeValue string(String value) {
    return MessageAttributeValue.builder().dataType("String").stringValue(value).build();
  }

  @Test
  void mergesAttributesWithTheJsonAttributeAndLetsAttributesWin() {
    Map<String, MessageAttributeValue> attributes =
        Map.of(
            OutboxHeaders.EVENT_ID,
            string("real-id"),
            "tenant",
            string("t1"),
            "count",
            MessageAttributeValue.builder().dataType("Number").stringValue("3").build(),
            SqsHeaders.OVERFLOW_ATTRIBUTE,
            string("{\"" + OutboxHeaders.EVENT_ID + "\":\"stored\",\"bad name\":\"v\"}"));

    assertThat(SqsHeaders.read(attributes))
        .containsOnly(
            Map.entry(OutboxHeaders.EVENT_ID, "real-id"),
            Map.entry("tenant", "t1"),
            Map.entry("bad name", "v"));
  }

  @Test
  void readsAReceivedMessage() {
    Message message =
        Message.builder().messageAttributes(Map.of(OutboxHeaders.EVENT_ID, string("id-1"))).build();

    assertThat(SqsHeaders.read(message)).containsOnly(Map.entry(OutboxHeaders.EVENT_ID, "id-1"));
  }

  @Test
  void readsAMessageWithoutAttributes() {
    assertThat(SqsHeaders.read(Map.of())).isEmpty();
  }
}
