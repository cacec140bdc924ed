package dev.txoutbox.testing.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.TestMessages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Publisher} must keep, written once and run by each broker plugin
 * against its real broker. A plugin's test class extends this and supplies the broker: a publisher
 * routing {@link #AGGREGATE_TYPE} to a fresh destination that keeps the order of each aggregate's
 * messages (for SQS, a FIFO queue), a way to read that destination back in arrival order, a message
 * the broker must refuse for good, and a message larger than the broker takes.
 */
public abstract class PublisherContractTest {

  /** The aggregate type every contract message carries; the publisher must route it. */
  public static final String AGGREGATE_TYPE = "contract";

  /** A message as a consumer received it from the broker. */
  public record ReceivedMessage(String payload, Map<String, String> headers) {}

  private Publisher publisher;

  /**
   * A publisher that delivers {@link #AGGREGATE_TYPE} events to a destination no other test uses.
   * Called before each test; the suite closes it after.
   */
  protected abstract Publisher createPublisher() throws Exception;

  /**
   * Reads {@code count} messages from the destination of the current test's publisher, waiting at
   * most {@code timeout}, and returns at most {@code count} of what arrived (fewer if the time ran
   * out) in the order they arrived; messages of one aggregate in the order the broker delivers
   * them. Header values are returned as strings.
   */
  protected abstract List<ReceivedMessage> receive(int count, Duration timeout) throws Exception;

  /**
   * A variant of {@code message} that this broker refuses permanently, such as a record larger than
   * the broker accepts or one routed nowhere.
   */
  protected abstract OutboxMessage permanentlyFailing(OutboxMessage message);

  /**
   * A variant of {@code message} larger than this broker takes in one message, as the broker counts
   * it: a payload over Kafka's {@code max.request.size} or SQS's message size, headers whose AMQP
   * content header exceeds RabbitMQ's {@code frame_max}. The publisher must refuse it alone,
   * permanently, and send the rest of its batch.
   */
  protected abstract OutboxMessage oversized(OutboxMessage message);

  /** How long to wait for messages to arrive. Defaults to 30 seconds. */
  protected Duration receiveTimeout() {
    return Duration.ofSeconds(30);
  }

  @BeforeEach
  void openPublisher() throws Exception {
    publisher = createPublisher();
  }

  @AfterEach
  void closePublisher() {
    if (publisher != null) {
      publisher.close();
    }
  }

  /** The publisher under test. */
  protected Publisher publisher() {
    return publisher;
  }

  /** A contract message with a stored trace header and a payload naming its index. */
  protected static OutboxMessage message(int index, String aggregateId) {
    return TestMessages.message()
        .sequence(index)
        .aggregateType(AGGREGATE_TYPE)
        .aggregateId(aggregateId)
        .eventType("contract.happened")
        .payload("{\"index\":" + index + ",\"text\":\"caf\u00e9 \u2713\"}")
        .headers(
            Map.of(
                "traceparent",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                "tenant",
                "t-" + index))
        .build();
  }

  @Test
  void deliversEveryMessageOfABatchWithIdentityHeadersAndPayload() throws Exception {
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      batch.add(message(i, "agg-" + (i % 7)));
    }

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results).hasSize(batch.size()).allMatch(PublishResult::isPublished);
    List<ReceivedMessage> received = receive(batch.size(), receiveTimeout());
    assertThat(received).hasSize(batch.size());
    Map<String, ReceivedMessage> byId =
        received.stream()
            .collect(
                Collectors.toMap(
                    r -> r.headers().get(OutboxHeaders.EVENT_ID), Function.identity()));
    for (OutboxMessage sent : batch) {
      ReceivedMessage got = byId.get(sent.id().toString());
      assertThat(got).as("message %s", sent.id()).isNotNull();
      assertThat(got.payload()).isEqualTo(sent.payload());
      assertThat(got.headers())
          .containsEntry(OutboxHeaders.EVENT_TYPE, sent.eventType())
          .containsEntry(OutboxHeaders.AGGREGATE_TYPE, sent.aggregateType())
          .containsEntry(OutboxHeaders.AGGREGATE_ID, sent.aggregateId())
          .containsEntry(OutboxHeaders.CREATED_AT, OutboxHeaders.formatCreatedAt(sent.createdAt()))
          .containsAllEntriesOf(sent.headers());
      assertThat(got.headers().get(OutboxHeaders.CREATED_AT))
          .as("%s of message %s", OutboxHeaders.CREATED_AT, sent.id())
          .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z");
    }
  }

  @Test
  void reportsOneOutcomePerMessageInInputOrder() throws Exception {
    List<OutboxMessage> batch =
        List.of(
            message(0, "a"),
            permanentlyFailing(message(1, "b")),
            message(2, "c"),
            permanentlyFailing(message(3, "d")));

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED, Status.PERMANENT_FAILURE, Status.PUBLISHED, Status.PERMANENT_FAILURE);
    assertThat(results.get(1).reason()).isNotBlank();
  }

  @Test
  void permanentFailureDoesNotFailItsNeighbours() throws Exception {
    // Neighbours of other aggregates: for later events of its own aggregate, see
    // afterAFailureInARunNoLaterEventOfThatAggregateIsReportedPublished.
    OutboxMessage before = message(0, "n-before");
    OutboxMessage poison = permanentlyFailing(message(1, "n-poison"));
    OutboxMessage after = message(2, "n-after");

    List<PublishResult> results = publisher.publish(List.of(before, poison, after));

    assertThat(results.get(0).isPublished()).isTrue();
    assertThat(results.get(1).isPermanent()).isTrue();
    assertThat(results.get(2).isPublished()).isTrue();
    List<ReceivedMessage> received = receive(2, receiveTimeout());
    assertThat(received)
        .extracting(r -> r.headers().get(OutboxHeaders.EVENT_ID))
        .containsExactlyInAnyOrder(before.id().toString(), after.id().toString());
  }

  @Test
  void oneOversizedEventFailsAlonePermanentlyAndEveryHealthyOneReachesTheBroker() throws Exception {
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      batch.add(message(i, "big-" + i));
    }
    batch.set(4, oversized(batch.get(4)));
    List<OutboxMessage> healthy = new ArrayList<>(batch);
    healthy.remove(4);

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results).hasSize(batch.size());
    assertThat(results.get(4).status())
        .as("the oversized event")
        .isEqualTo(Status.PERMANENT_FAILURE);
    assertThat(results.get(4).reason()).as("why it was refused").isNotBlank();
    for (int i = 0; i < batch.size(); i++) {
      if (i != 4) {
        assertThat(results.get(i).status()).as("healthy event %d", i).isEqualTo(Status.PUBLISHED);
      }
    }
    assertThat(receive(healthy.size(), receiveTimeout()))
        .extracting(r -> r.headers().get(OutboxHeaders.EVENT_ID))
        .as("every healthy event, and not the oversized one")
        .containsExactlyInAnyOrderElementsOf(healthy.stream().map(m -> m.id().toString()).toList());
  }

  @Test
  void messagesWithoutStoredHeadersStillCarryTheirIdentity() throws Exception {
    OutboxMessage plain =
        TestMessages.message()
            .sequence(1)
            .aggregateType(AGGREGATE_TYPE)
            .aggregateId("plain")
            .eventType("contract.plain")
            .payload("{}")
            .attempt(3)
            .build();

    assertThat(publisher.publish(List.of(plain)))
        .extracting(PublishResult::isPublished)
        .containsExactly(true);
    List<ReceivedMessage> received = receive(1, receiveTimeout());
    assertThat(received).hasSize(1);
    assertThat(received.get(0).headers())
        .containsEntry(OutboxHeaders.EVENT_ID, plain.id().toString());
    assertThat(received.get(0).payload()).isEqualTo("{}");
  }

  @Test
  void closesCleanlyAndIdempotently() throws Exception {
    assertThat(publisher.publish(List.of(message(0, "c")))).allMatch(PublishResult::isPublished);
    assertThatCode(
            () -> {
              publisher.close();
              publisher.close();
            })
        .doesNotThrowAnyException();
    publisher = null;
  }
}
