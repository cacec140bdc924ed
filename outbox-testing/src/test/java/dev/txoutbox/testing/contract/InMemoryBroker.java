package dev.txoutbox.testing.contract;

import dev.txoutbox.spi.OutboxHeaders;
import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.RunOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A destination in memory and a publisher to it, for testing the contract suite itself, never a
 * broker integration. The publisher keeps the contract; {@link Flaw} breaks one rule of it.
 */
final class InMemoryBroker {

  /** The event type this broker refuses for good. */
  static final String REFUSED = "refused.always";

  /** The largest payload this broker takes, in UTF-8 bytes. */
  static final int MAX_PAYLOAD_BYTES = 1024;

  /** A rule the publisher breaks. */
  enum Flaw {
    NONE,
    /** Reports the events after a failure of their aggregate as published. */
    PUBLISHES_AFTER_A_FAILURE,
    /** Delivers each batch in reverse order. */
    REVERSES_THE_BATCH,
    /** Fails every event after an oversized one, as a broken channel would. */
    OVERSIZED_FAILS_THE_REST
  }

  final List<PublisherContractTest.ReceivedMessage> delivered = new CopyOnWriteArrayList<>();

  Publisher publisher(Flaw flaw) {
    return messages -> {
      List<OutboxMessage> sending = new ArrayList<>(messages);
      if (flaw == Flaw.REVERSES_THE_BATCH) {
        java.util.Collections.reverse(sending);
      }
      Map<OutboxMessage, PublishResult> results = new HashMap<>();
      Set<String> failed = new HashSet<>();
      boolean broken = false;
      for (OutboxMessage m : sending) {
        if (broken) {
          results.put(m, PublishResult.retryable("the channel failed"));
        } else if (failed.contains(m.aggregateId()) && flaw != Flaw.PUBLISHES_AFTER_A_FAILURE) {
          results.put(m, PublishResult.retryable(RunOrder.NOT_SENT));
        } else if (m.eventType().equals(REFUSED)) {
          failed.add(m.aggregateId());
          results.put(m, PublishResult.permanent("refused: " + REFUSED));
        } else if (m.payloadBytes().length > MAX_PAYLOAD_BYTES) {
          failed.add(m.aggregateId());
          results.put(m, PublishResult.permanent("payload over " + MAX_PAYLOAD_BYTES + " bytes"));
          broken = flaw == Flaw.OVERSIZED_FAILS_THE_REST;
        } else {
          delivered.add(received(m));
          results.put(m, PublishResult.published());
        }
      }
      return messages.stream().map(results::get).toList();
    };
  }

  private static PublisherContractTest.ReceivedMessage received(OutboxMessage m) {
    return new PublisherContractTest.ReceivedMessage(m.payload(), OutboxHeaders.of(m));
  }

  List<PublisherContractTest.ReceivedMessage> take(int count) {
    return List.copyOf(delivered.subList(0, Math.min(count, delivered.size())));
  }

  static OutboxMessage refused(OutboxMessage m) {
    return m.toBuilder().eventType(REFUSED).build();
  }
}
