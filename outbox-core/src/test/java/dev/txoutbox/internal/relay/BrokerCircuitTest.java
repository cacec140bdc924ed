package dev.txoutbox.internal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.txoutbox.Backoff;
import dev.txoutbox.RelayListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BrokerCircuitTest {

  private final AtomicLong now = new AtomicLong();
  private final List<String> events = new ArrayList<>();
  private final BrokerCircuit circuit =
      new BrokerCircuit(
          "test",
          new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(4), 2.0, 0.0),
          new RelayListener() {
            @Override
            public void brokerUnavailable(String reason) {
              events.add("down: " + reason);
            }

            @Override
            public void brokerAvailable(Duration outage) {
              events.add("up after " + outage.toSeconds() + "s");
            }
          },
          now::get);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void claimsWhileTheBrokerAnswers() {
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Claim.class);
    circuit.report(null, true, now.get());
    circuit.report(null, false, now.get()); // an empty batch is no news
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Claim.class);
    assertThat(events).isEmpty();
  }

  @Test
  void anUnavailableBatchStopsClaimingUntilAProbeIsAnswered() {
    circuit.report("refused", false, now.get());
    assertThat(events).containsExactly("down: refused");
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Wait.class);

    advance(Duration.ofSeconds(1));
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Probe.class);
    // A second worker must not probe at the same time.
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Wait.class);
    circuit.report("refused", false, now.get());
    circuit.probed();

    advance(Duration.ofMillis(1500));
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Wait.class);
    advance(Duration.ofMillis(500));
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Probe.class);
    circuit.report(null, true, now.get());
    circuit.probed();

    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Claim.class);
    assertThat(events).containsExactly("down: refused", "up after 3s");
  }

  @Test
  void aBatchInFlightWhenTheCircuitOpenedDoesNotCloseIt() {
    long inFlightSince = now.get();
    advance(Duration.ofMillis(5));
    circuit.report("refused", false, now.get());
    advance(Duration.ofMillis(5));
    circuit.report(null, true, inFlightSince); // partly confirmed before the broker went away
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Wait.class);
    assertThat(events).containsExactly("down: refused");
  }

  /**
   * Two WAL batches held in one outage: the first published again closes it; the second's publish,
   * begun before that and answered "unavailable" after it, is older news and opens no second one.
   */
  @Test
  void aBatchBegunBeforeTheBrokerWasSeenBackDoesNotOpenTheCircuitAgain() {
    circuit.report("refused", false, now.get());
    advance(Duration.ofMillis(5));
    long secondBegan = now.get();
    advance(Duration.ofMillis(5));
    circuit.report(null, true, now.get()); // the first batch, published
    advance(Duration.ofMillis(5));
    circuit.report("refused", false, secondBegan);
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Claim.class);
    assertThat(events).containsExactly("down: refused", "up after 0s");

    circuit.report("refused", false, now.get()); // news after the close: a new outage
    assertThat(events).containsExactly("down: refused", "up after 0s", "down: refused");
  }

  @Test
  void theWaitBetweenProbesGrowsToTheCap() {
    circuit.report("refused", false, now.get());
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      BrokerCircuit.Permit p = circuit.permit();
      long waited = 0;
      while (p instanceof BrokerCircuit.Wait w) {
        advance(w.duration());
        waited += w.duration().toMillis();
        p = circuit.permit();
      }
      waits.add(waited);
      circuit.report("refused", false, now.get());
      circuit.probed();
    }
    assertThat(waits).containsExactly(1000L, 2000L, 4000L, 4000L, 4000L);
    assertThat(events).hasSize(1);
  }

  @Test
  void aProbeThatFailsWithoutNewsOfTheBrokerStillWaitsBeforeTheNext() {
    circuit.report("refused", false, now.get());
    advance(Duration.ofSeconds(1));
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Probe.class);
    advance(Duration.ofSeconds(5)); // the probe's cycle failed on the database, after a while
    circuit.probed();
    assertThat(circuit.permit()).isInstanceOf(BrokerCircuit.Wait.class);
  }
}
