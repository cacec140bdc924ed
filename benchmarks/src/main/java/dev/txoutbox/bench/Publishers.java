package dev.txoutbox.bench;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Publishers made as the standalone relay makes them: by the {@link PublisherProvider} of the
 * broker's name, from settings named like the relay's flags. Stateless.
 */
final class Publishers {

  /** How the benchmarks' publishers name themselves to the broker. */
  private static final String CLIENT_NAME = "txoutbox-bench";

  private Publishers() {}

  /**
   * A new publisher of provider {@code name} configured by {@code settings}.
   *
   * @throws IllegalStateException if no provider of that name is on the class path
   * @throws IllegalArgumentException if a setting is unknown or invalid
   */
  static Publisher create(String name, Map<String, String> settings) {
    for (PublisherProvider p : ServiceLoader.load(PublisherProvider.class)) {
      if (p.name().equals(name)) {
        return p.create(PublisherSettings.of(p, CLIENT_NAME, settings));
      }
    }
    throw new IllegalStateException(
        "a publisher provider named '" + name + "' must be on the class path but is not");
  }
}
