package dev.txoutbox.bench;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.util.Collections;
import java.util.List;

/** Acknowledges every message at once: what the relay costs without a broker. */
final class NoopTarget implements Target {

  @Override
  public String name() {
    return "no-op";
  }

  @Override
  public Publisher publisher() {
    return new Publisher() {
      @Override
      public List<PublishResult> publish(List<OutboxMessage> messages) {
        return Collections.nCopies(messages.size(), PublishResult.published());
      }

      @Override
      public String name() {
        return "no-op";
      }

      /** Its aggregate type, as a plugin's router names a destination (read when tracing only). */
      @Override
      public String destinationName(OutboxMessage message) {
        return message.aggregateType();
      }
    };
  }
}
