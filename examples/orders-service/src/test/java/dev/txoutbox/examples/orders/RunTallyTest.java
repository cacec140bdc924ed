package dev.txoutbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RunTallyTest {

  @Test
  void aRecordReadAgainIsAReReadAndAnotherRecordOfTheSameEventABrokerDuplicate() {
    RunTally tally = new RunTally();
    tally.consumed("orders-0@0", false); // event A, first read
    tally.consumed("orders-0@1", false); // event B, first read
    tally.consumed("orders-0@0", true); // offset 0 again: the group re-joined
    tally.consumed("orders-0@1", true);
    tally.consumed("orders-1@7", true); // event A in another record: the relay sent it twice
    tally.consumed("orders-1@7", true); // and that record read again

    assertThat(tally.reReads()).isEqualTo(3);
    assertThat(tally.brokerDuplicates()).isEqualTo(1);
  }
}
