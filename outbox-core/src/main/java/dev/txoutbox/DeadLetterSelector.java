package dev.txoutbox;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Which dead letters an admin operation applies to: given ids ({@link ByIds}), one event type
 * ({@link ByEventType}) or all ({@link All}). Sealed, so code that handles a selector can cover
 * every kind and the compiler knows there are no others. Made by the factories {@link
 * #ids(UUID...)}, {@link #eventType(String)} and {@link #all()}. Immutable and thread-safe.
 */
public sealed interface DeadLetterSelector
    permits DeadLetterSelector.ByIds, DeadLetterSelector.ByEventType, DeadLetterSelector.All {

  /**
   * The dead letters with these ids (others are ignored).
   *
   * @throws NullPointerException if {@code ids} or one of them is null
   * @throws IllegalArgumentException if no id is given
   */
  static DeadLetterSelector ids(UUID... ids) {
    return new ByIds(new HashSet<>(Arrays.asList(Objects.requireNonNull(ids, "ids"))));
  }

  /**
   * The dead letters with these ids (others are ignored).
   *
   * @throws NullPointerException if {@code ids} or one of them is null
   * @throws IllegalArgumentException if {@code ids} is empty
   */
  static DeadLetterSelector ids(Set<UUID> ids) {
    return new ByIds(ids);
  }

  /**
   * The dead letters of one event type.
   *
   * @throws NullPointerException if {@code eventType} is null
   * @throws IllegalArgumentException if {@code eventType} is blank
   */
  static DeadLetterSelector eventType(String eventType) {
    return new ByEventType(eventType);
  }

  /** Every dead letter. */
  static DeadLetterSelector all() {
    return All.INSTANCE;
  }

  /**
   * The dead letters with the given ids.
   *
   * @param ids at least one event id; copied
   */
  record ByIds(Set<UUID> ids) implements DeadLetterSelector {

    /**
     * @throws NullPointerException if {@code ids} or one of them is null
     * @throws IllegalArgumentException if {@code ids} is empty
     */
    public ByIds {
      Objects.requireNonNull(ids, "ids");
      if (ids.stream().anyMatch(Objects::isNull)) {
        throw new NullPointerException("ids must not contain null");
      }
      ids = Set.copyOf(ids);
      if (ids.isEmpty()) {
        throw new IllegalArgumentException("ids must hold at least one id but was empty");
      }
    }

    @Override
    public String toString() {
      return "dead letters " + Arrays.toString(ids.toArray());
    }
  }

  /**
   * The dead letters of one event type.
   *
   * @param eventType not blank
   */
  record ByEventType(String eventType) implements DeadLetterSelector {

    /**
     * @throws NullPointerException if {@code eventType} is null
     * @throws IllegalArgumentException if {@code eventType} is blank
     */
    public ByEventType {
      Objects.requireNonNull(eventType, "eventType");
      if (eventType.isBlank()) {
        throw new IllegalArgumentException(
            "eventType must not be blank but was '" + eventType + "'");
      }
    }

    @Override
    public String toString() {
      return "dead letters of type " + eventType;
    }
  }

  /** Every dead letter. */
  record All() implements DeadLetterSelector {

    private static final All INSTANCE = new All();

    @Override
    public String toString() {
      return "all dead letters";
    }
  }
}
