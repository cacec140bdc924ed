package dev.txoutbox.testing.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The run-order part of the {@link dev.txoutbox.spi.Publisher} contract, which per-aggregate
 * ordered mode relies on: the events of one aggregate in a batch are delivered in sequence order,
 * and once one of them fails no later one of that aggregate is reported published. A plugin's
 * contract test extends this class instead of {@link PublisherContractTest} once it keeps this
 * part; the relay enforces the second rule on its side as well (later events of a failed run cost
 * no attempt and stay pending).
 */
public abstract class RunOrderContractTest extends PublisherContractTest {

  @Test
  void deliversTheEventsOfOneAggregateInSequenceOrder() throws Exception {
    // A run of 20 events of one aggregate, longer than one SQS request, between other aggregates.
    List<OutboxMessage> batch = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      batch.add(message(i, i % 3 == 2 ? "single-" + i : "run"));
    }

    List<PublishResult> results = publisher().publish(batch);

    assertThat(results).hasSize(batch.size()).allMatch(PublishResult::isPublished);
    List<ReceivedMessage> received = receive(batch.size(), receiveTimeout());
    assertThat(received).hasSize(batch.size());
    assertThat(eventIdsOf("run", received))
        .as("the run arrives in sequence order")
        .containsExactlyElementsOf(
            batch.stream()
                .filter(m -> m.aggregateId().equals("run"))
                .map(m -> m.id().toString())
                .toList());
  }

  @Test
  void afterAFailureInARunNoLaterEventOfThatAggregateIsReportedPublished() throws Exception {
    OutboxMessage first = message(0, "run");
    OutboxMessage poison = permanentlyFailing(message(1, "run"));
    OutboxMessage third = message(2, "run");
    OutboxMessage other = message(3, "other");
    OutboxMessage fifth = message(4, "run");
    OutboxMessage otherAgain = message(5, "other");

    List<PublishResult> results =
        publisher().publish(List.of(first, poison, third, other, fifth, otherAgain));

    assertThat(results).hasSize(6);
    assertThat(results.get(0).isPublished()).as("before the failure").isTrue();
    assertThat(results.get(1).isPublished()).as("the failure").isFalse();
    assertThat(results.get(2).isPublished()).as("after the failure, same aggregate").isFalse();
    assertThat(results.get(4).isPublished()).as("after the failure, same aggregate").isFalse();
    assertThat(results.get(3).isPublished()).as("another aggregate goes on").isTrue();
    assertThat(results.get(5).isPublished()).as("another aggregate goes on").isTrue();
    // At least the three published arrive. Should a broker have taken the later events of the run
    // before the failure was known, they arrive in order, and never the failed one.
    List<ReceivedMessage> received = receive(3, receiveTimeout());
    assertThat(received).hasSize(3);
    List<String> run = eventIdsOf("run", received);
    List<String> sendable =
        List.of(first.id().toString(), third.id().toString(), fifth.id().toString());
    assertThat(run).contains(first.id().toString()).isSubsetOf(sendable);
    assertThat(run)
        .as("in sequence order")
        .containsExactlyElementsOf(sendable.stream().filter(run::contains).toList());
  }

  /** The event ids of {@code aggregateId}'s messages among {@code received}, in arrival order. */
  private static List<String> eventIdsOf(String aggregateId, List<ReceivedMessage> received) {
    return received.stream()
        .filter(r -> aggregateId.equals(r.headers().get(OutboxHeaders.AGGREGATE_ID)))
        .map(r -> r.headers().get(OutboxHeaders.EVENT_ID))
        .toList();
  }
}
