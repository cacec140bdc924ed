package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.testing.TestMessages;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RabbitHeadersTest {

  private TestTopology topology;

  @BeforeEach
  void createTopology() throws Exception {
    topology = TestTopology.create("headers", "parcel.*");
  }

  @AfterEach
  void cleanUp() throws Exception {
    topology.close();
  }

  @Test
  void readsBackExactlyTheHeadersThePublisherWroteThroughARealBroker() throws Exception {
    Map<String, String> stored = new LinkedHashMap<>();
    stored.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    stored.put("tracestate", "congo=t61rcWkgMzE");
    stored.put("tenant", "ÄÖÜ – ünïcødé ✓");
    stored.put(OutboxHeaders.EVENT_ID, "a stored header cannot shadow the identity");
    OutboxMessage message =
        TestMessages.message()
            .aggregateType("parcel")
            .aggregateId("p-1")
            .eventType("parcel.sent")
            .headers(stored)
            .createdAt(Instant.parse("2026-11-30T06:50:38.123456Z"))
            .build();

    try (RabbitPublisher publisher =
        RabbitPublisher.builder()
            .connectionFactory(RabbitTestBroker.factory())
            .exchange(topology.exchange())
            .build()) {
      assertThat(publisher.publish(List.of(message))).containsExactly(PublishResult.published());
    }
    Delivery delivery = topology.take(1, Duration.ofSeconds(30)).get(0);

    assertThat(RabbitHeaders.read(delivery))
        .containsExactlyInAnyOrderEntriesOf(OutboxHeaders.of(message));
  }

  @Test
  void readsByteArraysAsUtf8AndOtherValuesAsTextAndLeavesOutNulls() {
    Map<String, Object> table = new LinkedHashMap<>();
    table.put("long-string", LongStringHelper.asLongString("ü"));
    table.put("bytes", "✓".getBytes(StandardCharsets.UTF_8));
    table.put("number", 42);
    table.put("nothing", null);

    assertThat(RabbitHeaders.read(new AMQP.BasicProperties.Builder().headers(table).build()))
        .containsOnly(
            Map.entry("long-string", "ü"), Map.entry("bytes", "✓"), Map.entry("number", "42"));
    assertThat(RabbitHeaders.read(new AMQP.BasicProperties.Builder().build())).isEmpty();
  }
}
