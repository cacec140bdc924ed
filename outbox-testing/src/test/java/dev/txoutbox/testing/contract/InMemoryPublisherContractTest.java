package dev.txoutbox.testing.contract;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.testing.contract.InMemoryBroker.Flaw;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The contract suite run against a publisher in memory that keeps the contract: the suite passes.
 * The tests added here run the suite's run-order tests against publishers that break one rule each
 * and check that they fail, so the suite can tell.
 */
class InMemoryPublisherContractTest extends RunOrderContractTest {

  private InMemoryBroker broker;
  private Flaw flaw = Flaw.NONE;

  @Override
  protected Publisher createPublisher() {
    broker = new InMemoryBroker();
    return broker.publisher(flaw);
  }

  @Override
  protected List<ReceivedMessage> receive(int count, Duration timeout) {
    return broker.take(count);
  }

  @Override
  protected OutboxMessage permanentlyFailing(OutboxMessage message) {
    return InMemoryBroker.refused(message);
  }

  @Override
  protected OutboxMessage oversized(OutboxMessage message) {
    return message.toBuilder()
        .payload("\"" + "x".repeat(InMemoryBroker.MAX_PAYLOAD_BYTES) + "\"")
        .build();
  }

  private void breakRule(Flaw rule) throws Exception {
    closePublisher();
    flaw = rule;
    openPublisher();
  }

  @Test
  void catchesAPublisherThatReportsEventsAfterAFailureOfTheirAggregateAsPublished()
      throws Exception {
    breakRule(Flaw.PUBLISHES_AFTER_A_FAILURE);
    assertThatThrownBy(this::afterAFailureInARunNoLaterEventOfThatAggregateIsReportedPublished)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("after the failure, same aggregate");
  }

  @Test
  void catchesAPublisherWhoseOversizedEventFailsTheRestOfItsBatch() throws Exception {
    breakRule(Flaw.OVERSIZED_FAILS_THE_REST);
    assertThatThrownBy(
            this::oneOversizedEventFailsAlonePermanentlyAndEveryHealthyOneReachesTheBroker)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("healthy event 5");
  }

  @Test
  void catchesAPublisherThatDeliversARunOutOfOrder() throws Exception {
    breakRule(Flaw.REVERSES_THE_BATCH);
    assertThatThrownBy(this::deliversTheEventsOfOneAggregateInSequenceOrder)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the run arrives in sequence order");
  }
}
