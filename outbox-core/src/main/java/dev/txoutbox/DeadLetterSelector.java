package dev.txoutbox;

import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Which dead letters an admin operation applies to: given ids, one event type, or all. Immutable
 * and thread-safe.
 *
 * @param ids the event ids, or empty when selecting by type or all
 * @param eventType the event type, or null
 * @param everything whether every dead letter is selected
 */
public record DeadLetterSelector(Set<UUID> ids, String eventType, boolean everything) {

  /**
   * @throws IllegalArgumentException unless exactly one kind of selection is made
   */
  public DeadLetterSelector {
    ids = Set.copyOf(Objects.requireNonNull(ids, "ids"));
    int kinds = (ids.isEmpty() ? 0 : 1) + (eventType == null ? 0 : 1) + (everything ? 1 : 0);
    if (kinds != 1) {
      throw new IllegalArgumentException(
          "select dead letters by ids, by eventType or all: exactly one, but got " + kinds);
    }
    if (eventType != null && eventType.isBlank()) {
      throw new IllegalArgumentException("eventType must not be blank");
    }
  }

  /** The dead letters with these ids (others are ignored). */
  public static DeadLetterSelector ids(UUID... ids) {
    return new DeadLetterSelector(Set.of(ids), null, false);
  }

  /** The dead letters with these ids (others are ignored). */
  public static DeadLetterSelector ids(Set<UUID> ids) {
    return new DeadLetterSelector(ids, null, false);
  }

  /** The dead letters of one event type. */
  public static DeadLetterSelector eventType(String eventType) {
    return new DeadLetterSelector(Set.of(), Objects.requireNonNull(eventType, "eventType"), false);
  }

  /** Every dead letter. */
  public static DeadLetterSelector all() {
    return new DeadLetterSelector(Set.of(), null, true);
  }

  @Override
  public String toString() {
    if (everything) {
      return "all dead letters";
    }
    return eventType != null
        ? "dead letters of type " + eventType
        : "dead letters " + Arrays.toString(ids.toArray());
  }
}
