package dev.txoutbox.internal.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * One counter per event type tag value ({@link EventTypeTags}: the event type, or {@value
 * EventTypeTags#OTHER} beyond the cap), registered on first use and all removed by {@link
 * #close()}; none is registered after it. Thread-safe.
 */
final class EventTypeCounters {

  private final MeterRegistry registry;
  private final String name;
  private final String description;
  private final Tags tags;
  private final EventTypeTags eventTypes;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private boolean closed; // guarded by this

  EventTypeCounters(
      MeterRegistry registry,
      String name,
      String description,
      Tags tags,
      EventTypeTags eventTypes) {
    this.registry = registry;
    this.name = name;
    this.description = description;
    this.tags = tags;
    this.eventTypes = eventTypes;
  }

  /** Adds one to the counter of {@code eventType}; does nothing once closed. */
  void increment(String eventType) {
    String tag = eventTypes.tagFor(eventType);
    Counter counter = counters.get(tag);
    if (counter == null) {
      counter = register(tag);
      if (counter == null) {
        return;
      }
    }
    counter.increment();
  }

  private synchronized @Nullable Counter register(String eventType) {
    if (closed) {
      return null;
    }
    return counters.computeIfAbsent(
        eventType,
        type ->
            Counter.builder(name)
                .description(description)
                .tags(tags)
                .tag(MeterNames.EVENT_TYPE_TAG, type)
                .register(registry));
  }

  /** Removes every counter from the registry. Idempotent. */
  synchronized void close() {
    closed = true;
    counters.values().forEach(registry::remove);
    counters.clear();
  }
}
