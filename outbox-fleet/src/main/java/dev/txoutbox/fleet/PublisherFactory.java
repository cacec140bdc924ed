package dev.txoutbox.fleet;

import dev.txoutbox.spi.Publisher;
import dev.txoutbox.spi.PublisherProvider;
import dev.txoutbox.spi.PublisherSettings;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Makes the publisher of one outbox when a node starts its relay. The node closes it when it stops
 * the relay. The default, {@link #serviceLoader()}, finds the {@link PublisherProvider} named by
 * {@link FleetOutbox#publisher()} on the class path, as the standalone relay does.
 *
 * <p>Implementations must be thread-safe: nodes call them from each outbox's own thread.
 */
@FunctionalInterface
public interface PublisherFactory {

  /**
   * A new publisher for {@code outbox}.
   *
   * @param outbox the entry
   * @param settings its publisher settings with every {@code env:}/{@code file:} reference replaced
   *     by the secret: never log them
   * @param clientName how the publisher should name itself to the broker, {@code
   *     txoutbox-fleet-<node>.<outbox>}
   * @throws Exception if it cannot be made; the node logs it, backs off and tries again
   */
  Publisher create(FleetOutbox outbox, Map<String, String> settings, String clientName)
      throws Exception;

  /**
   * Finds the publisher's {@link PublisherProvider} with {@link ServiceLoader} and creates the
   * publisher from the settings.
   */
  static PublisherFactory serviceLoader() {
    return (outbox, settings, clientName) -> {
      for (PublisherProvider provider : ServiceLoader.load(PublisherProvider.class)) {
        if (provider.name().equals(outbox.publisher())) {
          return provider.create(PublisherSettings.of(provider, clientName, settings));
        }
      }
      throw new IllegalStateException(
          "publisher of outbox "
              + outbox.name()
              + " must be a provider on the node's class path but '"
              + outbox.publisher()
              + "' is not");
    };
  }
}
