package dev.txoutbox.rabbit;

import java.util.Set;

/**
 * The rule that keeps a stored header from being read by RabbitMQ as an instruction: a name the
 * broker or its plugins interpret is renamed, never dropped, by putting {@link #PREFIX} before it.
 * Thread-safe (stateless).
 *
 * <p>Renamed are: every name that starts with {@code x-}, the prefix RabbitMQ reserves for what it
 * and its plugins read ({@code x-death} and {@code x-first-death-*} / {@code x-last-death-*}
 * dead-letter history, {@code x-delay} of the delayed-message exchange, {@code x-match}, {@code
 * x-delivery-count}, {@code x-stream-filter-value}, {@code x-deduplication-header}, and those of
 * later versions); {@code CC} and {@code BCC}, which RabbitMQ reads as sender-selected routing; and
 * every name that already starts with {@link #PREFIX}, so that no two stored headers can end up
 * with one name.
 */
final class BrokerHeaderNames {

  /** What a renamed header's name starts with: {@value}. */
  static final String PREFIX = "outbox-stored-";

  /**
   * The prefix of the names RabbitMQ and its plugins reserve (matched as RabbitMQ does, exactly).
   */
  static final String RESERVED_PREFIX = "x-";

  /** Names RabbitMQ reads as sender-selected routing (extra routing keys). */
  static final Set<String> ROUTING_HEADERS = Set.of("CC", "BCC");

  private BrokerHeaderNames() {}

  /** The name a stored header named {@code name} carries on the AMQP message. */
  static String onTheWire(String name) {
    return isInterpreted(name) || name.startsWith(PREFIX) ? PREFIX + name : name;
  }

  /** Whether RabbitMQ or one of its plugins may read a header named {@code name}. */
  static boolean isInterpreted(String name) {
    return name.startsWith(RESERVED_PREFIX) || ROUTING_HEADERS.contains(name);
  }
}
