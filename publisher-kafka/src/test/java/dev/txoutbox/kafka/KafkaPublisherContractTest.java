package dev.txoutbox.kafka;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.contract.RunOrderContractTest;
import dev.txoutbox.testing.kafka.EmbeddedKafka;
import dev.txoutbox.testing.kafka.SharedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.common.header.Header;

/**
 * The Publisher contract against a real KRaft broker. Each test gets its own topic, which refuses
 * records over 16 KiB; the permanently failing message carries a 32 KiB payload, small enough for
 * the producer to send (its {@code max.request.size} is 1 MiB) so the broker itself refuses it,
 * after the publisher handed over the rest of the batch.
 */
class KafkaPublisherContractTest extends RunOrderContractTest {

  private static final int MAX_MESSAGE_BYTES = 16 * 1024;
  private static final AtomicInteger TOPICS = new AtomicInteger();

  private final EmbeddedKafka kafka = SharedKafka.broker();
  private String topic;

  @Override
  protected Publisher createPublisher() {
    topic = "contract-" + TOPICS.incrementAndGet();
    kafka.createTopic(topic, 3, Map.of("max.message.bytes", String.valueOf(MAX_MESSAGE_BYTES)));
    return KafkaPublisher.builder()
        .bootstrapServers(kafka.bootstrapServers())
        .topics(Map.of(AGGREGATE_TYPE, topic))
        .build();
  }

  /**
   * The first {@code count} records to arrive. A poll may bring more: the later events of a run
   * after a refused record were handed to the producer before the refusal was known, so they reach
   * the topic although the publisher does not report them published.
   */
  @Override
  protected List<ReceivedMessage> receive(int count, Duration timeout) {
    return kafka.read(topic, count, timeout).stream()
        .limit(count)
        .map(
            record -> {
              Map<String, String> headers = new HashMap<>();
              for (Header header : record.headers()) {
                headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
              }
              return new ReceivedMessage(
                  new String(record.value(), StandardCharsets.UTF_8), headers);
            })
        .collect(Collectors.toList());
  }

  @Override
  protected OutboxMessage permanentlyFailing(OutboxMessage message) {
    return message.toBuilder()
        .payload("{\"padding\":\"" + "x".repeat(2 * MAX_MESSAGE_BYTES) + "\"}")
        .build();
  }

  /**
   * A payload over the producer's {@code max.request.size} (1 MiB by default), which the producer
   * itself refuses, record by record, before sending.
   */
  @Override
  protected OutboxMessage oversized(OutboxMessage message) {
    return message.toBuilder().payload("{\"padding\":\"" + "x".repeat(1024 * 1024) + "\"}").build();
  }
}
