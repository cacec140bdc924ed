package dev.txoutbox.itmodulepath;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** A publisher without a broker: it keeps the ids it was given and reports each published. */
final class CollectingPublisher implements Publisher {

  private final List<UUID> ids = new ArrayList<>();

  @Override
  public synchronized List<PublishResult> publish(List<OutboxMessage> messages) {
    List<PublishResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage message : messages) {
      ids.add(message.id());
      results.add(PublishResult.published());
    }
    return results;
  }

  /** The ids received so far, in order. */
  synchronized List<UUID> ids() {
    return List.copyOf(ids);
  }
}
