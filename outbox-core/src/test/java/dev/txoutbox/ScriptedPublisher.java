package dev.txoutbox;

import dev.txoutbox.spi.OutboxMessage;
import dev.txoutbox.spi.PublishResult;
import dev.txoutbox.spi.Publisher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A fake broker for relay tests: answers each message with a scripted result and records every
 * message it was asked to publish and every one it acknowledged. Like a real publisher, once a
 * message of an aggregate is not published, it does not send the later ones of that aggregate in
 * the batch (it answers them retryable without asking the script).
 */
public final class ScriptedPublisher implements Publisher {

  private volatile Function<OutboxMessage, PublishResult> script = m -> PublishResult.published();
  public final ConcurrentLinkedQueue<OutboxMessage> attempted = new ConcurrentLinkedQueue<>();
  public final ConcurrentLinkedQueue<OutboxMessage> acknowledged = new ConcurrentLinkedQueue<>();
  public final Map<UUID, AtomicInteger> acknowledgements = new ConcurrentHashMap<>();
  public final AtomicInteger batches = new AtomicInteger();

  public ScriptedPublisher answer(Function<OutboxMessage, PublishResult> script) {
    this.script = script;
    return this;
  }

  @Override
  public List<PublishResult> publish(List<OutboxMessage> messages) throws InterruptedException {
    batches.incrementAndGet();
    List<PublishResult> results = new ArrayList<>(messages.size());
    Set<List<String>> failed = new HashSet<>();
    for (OutboxMessage m : messages) {
      attempted.add(m);
      List<String> aggregate = List.of(m.aggregateType(), m.aggregateId());
      if (failed.contains(aggregate)) {
        results.add(
            PublishResult.retryable("not sent: an earlier message of its aggregate failed"));
        continue;
      }
      PublishResult r = script.apply(m);
      if (r.isPublished()) {
        acknowledged.add(m);
        acknowledgements.computeIfAbsent(m.id(), id -> new AtomicInteger()).incrementAndGet();
      } else {
        failed.add(aggregate);
      }
      results.add(r);
    }
    return results;
  }

  @Override
  public String name() {
    return "scripted";
  }
}
