package dev.txoutbox.internal.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which event types get an {@code event_type} tag value of their own: the first {@code max} seen.
 * Every later type is counted under {@value #OTHER}, so the number of time series stays bounded
 * whatever the outbox holds. Shared by the failure counters, so a type has the same tag value in
 * each. Thread-safe.
 */
final class EventTypeTags {

  /** The tag value of the event types beyond the cap. */
  static final String OTHER = "other";

  private static final Logger log = LoggerFactory.getLogger(EventTypeTags.class);

  private final int max;
  private final String relayName;
  private final Set<String> own = ConcurrentHashMap.newKeySet();
  private boolean full; // guarded by this

  EventTypeTags(int max, String relayName) {
    this.max = max;
    this.relayName = relayName;
  }

  /** The tag value to count {@code eventType} under. */
  String tagFor(String eventType) {
    if (own.contains(eventType)) {
      return eventType;
    }
    synchronized (this) {
      if (own.contains(eventType) || (own.size() < max && own.add(eventType))) {
        return eventType;
      }
      if (!full) {
        full = true;
        log.warn(
            "outbox metrics of relay {}: more than {} event types; the others are counted under"
                + " event_type=\"{}\" (raise maxEventTypes to see more)",
            relayName,
            max,
            OTHER);
      }
      return OTHER;
    }
  }
}
