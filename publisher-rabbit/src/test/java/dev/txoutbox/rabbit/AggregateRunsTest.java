package dev.txoutbox.rabbit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.PublishResult.Status;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The run-order rule applied to hand-made result lists, without a broker. */
class AggregateRunsTest {

  private static final PublishResult OK = PublishResult.published();
  private static final PublishResult NACKED = PublishResult.retryable("nacked by RabbitMQ");
  private static final PublishResult UNROUTABLE = PublishResult.permanent("unroutable: 312");
  private static final PublishResult LOST =
      PublishResult.brokerUnavailable("RabbitMQ connection lost before the broker confirmed");

  /** One message per aggregate id given, all of aggregate type {@code order}. */
  private static List<OutboxMessage> batch(String... aggregateIds) {
    List<OutboxMessage> batch = new ArrayList<>();
    for (String id : aggregateIds) {
      batch.add(TestMessages.event("order", id, "order.created", "{}"));
    }
    return batch;
  }

  private static List<PublishResult> enforce(List<OutboxMessage> batch, PublishResult... results) {
    return AggregateRuns.of(batch).enforce(results);
  }

  @Test
  void numbersTheAggregatesByTypeAndIdInTheOrderTheyFirstAppear() {
    List<OutboxMessage> batch =
        List.of(
            TestMessages.event("order", "1", "order.created", "{}"),
            TestMessages.event("invoice", "1", "invoice.created", "{}"),
            TestMessages.event("order", "1", "order.paid", "{}"),
            TestMessages.event("order", "2", "order.created", "{}"));

    AggregateRuns runs = AggregateRuns.of(batch);

    assertThat(runs.size()).isEqualTo(4);
    assertThat(runs.count()).isEqualTo(3);
    assertThat(List.of(runs.runOf(0), runs.runOf(1), runs.runOf(2), runs.runOf(3)))
        .containsExactly(0, 1, 0, 2);
  }

  @Test
  void aBatchWithoutFailuresIsReportedAsItIs() {
    List<PublishResult> results = enforce(batch("a", "b", "a", "b"), OK, OK, OK, OK);

    assertThat(results).containsExactly(OK, OK, OK, OK);
  }

  @Test
  void afterAFailureTheLaterEventsOfItsAggregateAreNotPublishedAndOthersAreUntouched() {
    List<OutboxMessage> batch = batch("a", "b", "a", "c", "a", "b", "a", "c", "b");
    PublishResult[] given = {OK, OK, NACKED, OK, OK, UNROUTABLE, AggregateRuns.NOT_SENT, OK, OK};

    List<PublishResult> results = AggregateRuns.of(batch).enforce(given);

    assertThat(results)
        .containsExactly(
            OK, // a: before its failure
            OK,
            NACKED, // a: the failure keeps its outcome
            OK,
            AggregateRuns.SENT_AFTER_FAILURE, // a: acked after a's failure, not published
            UNROUTABLE, // b: a failure of its own
            AggregateRuns.NOT_SENT, // a: held back by the sender, kept
            OK, // c: never failed
            AggregateRuns.SENT_AFTER_FAILURE); // b: after b's failure
    assertThat(results.get(4).status()).isEqualTo(Status.RETRYABLE_FAILURE);
    assertThat(results.get(4).reason()).contains("earlier event of its aggregate failed");
    assertThat(given[4]).as("the input is not changed").isEqualTo(OK);
  }

  @Test
  void aBrokerUnavailableInARunStopsItAndKeepsItsOutcome() {
    List<OutboxMessage> batch = batch("a", "b", "a", "a", "b", "a");
    PublishResult[] given = {OK, OK, LOST, LOST, OK, OK};

    List<PublishResult> results = AggregateRuns.of(batch).enforce(given);

    assertThat(results)
        .extracting(PublishResult::status)
        .containsExactly(
            Status.PUBLISHED,
            Status.PUBLISHED,
            Status.BROKER_UNAVAILABLE,
            Status.BROKER_UNAVAILABLE,
            Status.PUBLISHED,
            Status.RETRYABLE_FAILURE);
    assertThat(results.get(2)).isSameAs(LOST);
    assertThat(results.get(3)).isSameAs(LOST);
    assertThat(results.get(5)).isSameAs(AggregateRuns.SENT_AFTER_FAILURE);
  }

  @Test
  void aFailureAtTheHeadOfARunStopsTheWholeRun() {
    List<PublishResult> results = enforce(batch("a", "a", "a"), UNROUTABLE, OK, OK);

    assertThat(results)
        .containsExactly(
            UNROUTABLE, AggregateRuns.SENT_AFTER_FAILURE, AggregateRuns.SENT_AFTER_FAILURE);
  }

  @Test
  void sameIdOfAnotherAggregateTypeIsAnotherAggregate() {
    List<OutboxMessage> batch =
        List.of(
            TestMessages.event("order", "1", "order.created", "{}"),
            TestMessages.event("invoice", "1", "invoice.created", "{}"));

    assertThat(AggregateRuns.of(batch).enforce(new PublishResult[] {NACKED, OK}))
        .containsExactly(NACKED, OK);
  }

  @Test
  void rejectsResultsOfAnotherSize() {
    AggregateRuns runs = AggregateRuns.of(batch("a", "b"));

    assertThatThrownBy(() -> runs.enforce(new PublishResult[] {OK}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2")
        .hasMessageContaining("1");
  }
}
