package dev.txoutbox.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.RunOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RecordingPublisherTest {

  private OutboxMessage message(String aggregateId, String eventType) {
    return TestMessages.message()
        .aggregateId(aggregateId)
        .eventType(eventType)
        .headers(Map.of("traceparent", "00-abc-01"))
        .build();
  }

  @Test
  void recordsWhatItPublishedForAssertionsThatReadLikeTheRequirement() {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxMessage created = message("o-1", "order.created");
    OutboxMessage other = message("o-2", "order.created");
    OutboxMessage paid = message("o-1", "order.paid");

    List<PublishResult> results = publisher.publish(List.of(created, other, paid));

    assertThat(results).allMatch(PublishResult::isPublished);
    publisher
        .assertPublished()
        .hasSize(3)
        .containsExactlyIds(paid.id(), created.id(), other.id())
        .containsExactlyEventTypes("order.created", "order.created", "order.paid")
        .inOrderForAggregate("order", "o-1", "order.created", "order.paid")
        .allHaveHeader("traceparent")
        .hasHeader(paid.id(), "traceparent", "00-abc-01")
        .hasPayload(paid.id(), "{}");
    assertThat(publisher.batches()).isEqualTo(1);
    assertThat(publisher.publishCounts()).containsEntry(created.id(), 1L).hasSize(3);
  }

  @Test
  void containsExactlyIdsCountsEachIdSoARepublishedEventIsNoOtherOne() {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxMessage a = message("o-1", "order.created");
    OutboxMessage b = message("o-2", "order.created");
    publisher.publish(List.of(a, b));
    publisher.publish(List.of(a));

    assertThatThrownBy(() -> publisher.assertPublished().containsExactlyIds(a.id(), b.id(), b.id()))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("each as often as listed");
    publisher.assertPublished().containsExactlyIds(a.id(), a.id(), b.id());
  }

  @Test
  void assertionsFailNamingWhatWasPublished() {
    RecordingPublisher publisher = new RecordingPublisher();
    OutboxMessage created = message("o-1", "order.created");
    publisher.publish(List.of(created));

    assertThatThrownBy(
            () -> publisher.assertPublished().inOrderForAggregate("order", "o-1", "order.paid"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected aggregate order/o-1 to publish [order.paid]")
        .hasMessageContaining("order.created order/o-1 " + created.id());
    assertThatThrownBy(() -> publisher.assertPublished().containsIds(UUID.randomUUID()))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> publisher.assertPublished().allHaveHeader("tracestate"))
        .isInstanceOf(AssertionError.class);
    assertThatThrownBy(() -> publisher.assertPublished().isEmpty())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("expected 0 published messages but there were 1");
  }

  @Test
  void failsTheNextMessagesThenPublishesAgain() {
    RecordingPublisher publisher =
        new RecordingPublisher().failNext(2, PublishResult.permanent("too large"));
    List<OutboxMessage> batch = List.of(message("a", "e"), message("b", "e"), message("c", "e"));

    List<PublishResult> results = publisher.publish(batch);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            PublishResult.Status.PERMANENT_FAILURE,
            PublishResult.Status.PERMANENT_FAILURE,
            PublishResult.Status.PUBLISHED);
    publisher.assertPublished().containsExactlyIds(batch.get(2).id());
    assertThat(publisher.failures())
        .extracting(a -> a.message().id())
        .containsExactly(batch.get(0).id(), batch.get(1).id());
  }

  @Test
  void failsMatchingEventsAndHoldsBackTheLaterOnesOfTheirAggregate() {
    RecordingPublisher publisher =
        new RecordingPublisher().failWhen(m -> m.eventType().equals("order.bad"));
    OutboxMessage bad = message("a", "order.bad");
    OutboxMessage after = message("a", "order.created");
    OutboxMessage elsewhere = message("b", "order.created");

    List<PublishResult> results = publisher.publish(List.of(bad, after, elsewhere));

    assertThat(results.get(0))
        .isEqualTo(PublishResult.retryable(RecordingPublisher.SCRIPTED_FAILURE));
    assertThat(results.get(1).reason()).isEqualTo(RunOrder.NOT_SENT);
    assertThat(results.get(2).isPublished()).isTrue();
    assertThat(publisher.attempts()).hasSize(3);

    publisher.clearFailures();
    publisher.publish(List.of(bad, after));
    publisher
        .assertPublished()
        .containsExactlyEventTypes("order.created", "order.bad", "order.created");
  }

  @Test
  void rejectsAPublishedResultAsAFailure() {
    assertThatThrownBy(() -> new RecordingPublisher().failNext(1, PublishResult.published()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("result must be a failure but was");
    assertThatThrownBy(() -> new RecordingPublisher().failNext(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("messages must be at least 0 but was -1");
  }

  @Test
  void recordsEveryMessageFromConcurrentBatches() throws Exception {
    RecordingPublisher publisher = new RecordingPublisher();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      String aggregate = "agg-" + t;
      threads.add(
          new Thread(
              () -> {
                for (int i = 0; i < 250; i++) {
                  publisher.publish(List.of(message(aggregate, "e" + i)));
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(publisher.published()).hasSize(1_000);
    assertThat(publisher.batches()).isEqualTo(1_000);
    String[] inOrder = new String[250];
    for (int i = 0; i < 250; i++) {
      inOrder[i] = "e" + i;
    }
    publisher.assertPublished().inOrderForAggregate("order", "agg-3", inOrder);
  }
}
